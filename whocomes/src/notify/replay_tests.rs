//! Made-up weeks replayed hour by hour through the traffic rules and the
//! episode machine: who is told, at which hour, and how many times.

use chrono::{DateTime, Duration, TimeZone as _, Timelike as _, Utc};

use super::NotifySettings;
use super::alerts::judge;
use super::notice::Draft;
use super::notice::State;
use super::outbox::Record;
use super::traffic::Hours;

/// A site's usual people at each hour of the day: few at night, most in
/// the afternoon, with a steady wobble so no two days are alike.
fn usual_site(days: i64, scale: u64) -> (Hours, DateTime<Utc>) {
    let start = Utc.with_ymd_and_hms(2026, 10, 1, 0, 0, 0).unwrap();
    let mut hours = Hours::new();
    for hour in 0..days * 24 {
        let at = start + Duration::hours(hour);
        let shape = [
            1, 1, 1, 1, 1, 2, 3, 5, 7, 8, 9, 10, 10, 10, 9, 9, 8, 8, 7, 6, 5, 4, 3, 2,
        ];
        let wobble = [8, 10, 12, 9, 11, 10, 13, 7][(hour % 8) as usize];
        let people = shape[at.hour() as usize] * wobble * scale / 10;
        if people > 0 {
            hours.insert(at, people);
        }
    }
    (hours, start + Duration::days(days))
}

/// Judges every hour from `from` for `count` hours, as the watch would
/// after each one ends; what was told, by hour.
fn replay(
    hours: &Hours,
    from: DateTime<Utc>,
    count: i64,
    record: &mut Record,
) -> Vec<(DateTime<Utc>, String, State)> {
    let settings = NotifySettings::default();
    let mut told = Vec::new();
    for n in 0..count {
        let hour = from + Duration::hours(n);
        let now = hour + Duration::minutes(65);
        for Draft { topic, state, .. } in judge(&settings, hours, hour, record, now) {
            told.push((hour, topic, state));
        }
    }
    told
}

fn at(day: DateTime<Utc>, hour: i64) -> DateTime<Utc> {
    day + Duration::hours(hour)
}

#[test]
fn a_usual_week_tells_nothing() {
    let (hours, end) = usual_site(42, 2);
    let told = replay(
        &hours,
        end - Duration::days(7),
        7 * 24,
        &mut Record::default(),
    );
    assert_eq!(told, Vec::new());
}

#[test]
fn a_spike_is_told_once_and_its_end_once() {
    let (mut hours, end) = usual_site(35, 2);
    let day = end - Duration::days(1);
    hours.insert(at(day, 14), 400);
    let told = replay(&hours, day, 24, &mut Record::default());
    assert_eq!(
        told,
        vec![
            (at(day, 14), "spike".to_owned(), State::Raised),
            // Two usual hours in a row end it.
            (at(day, 16), "spike".to_owned(), State::Recovered),
        ]
    );
}

#[test]
fn a_drop_to_nothing_is_told_once_and_its_end_once() {
    let (mut hours, end) = usual_site(35, 2);
    let day = end - Duration::days(1);
    for hour in 10..14 {
        hours.remove(&at(day, hour));
    }
    let told = replay(&hours, day, 24, &mut Record::default());
    assert_eq!(
        told,
        vec![
            (at(day, 10), "drop".to_owned(), State::Raised),
            (at(day, 15), "drop".to_owned(), State::Recovered),
        ]
    );
}

#[test]
fn a_spike_that_flaps_is_one_episode() {
    let (mut hours, end) = usual_site(35, 2);
    let day = end - Duration::days(1);
    for hour in [12, 14, 16, 18] {
        hours.insert(at(day, hour), 400);
    }
    let told = replay(&hours, day, 24, &mut Record::default());
    assert_eq!(
        told,
        vec![
            (at(day, 12), "spike".to_owned(), State::Raised),
            (at(day, 20), "spike".to_owned(), State::Recovered),
        ]
    );
}

#[test]
fn a_new_site_with_no_history_is_not_paged() {
    let (mut hours, end) = usual_site(3, 2);
    let day = end - Duration::days(1);
    hours.insert(at(day, 14), 5_000);
    for hour in 8..12 {
        hours.remove(&at(day, hour));
    }
    assert_eq!(replay(&hours, day, 24, &mut Record::default()), Vec::new());
}

#[test]
fn a_small_site_is_not_paged_for_a_few_more_readers_or_a_quiet_hour() {
    // One or two people every third hour: a site of a dozen readers a day.
    let (mut hours, end) = usual_site(35, 0);
    for (hour, people) in usual_site(35, 2).0 {
        if hour.hour() % 3 == 0 {
            hours.insert(hour, people / 16 + 1);
        }
    }
    let day = end - Duration::days(1);
    // Ten times its usual in one hour, but under the floor of 20.
    hours.insert(at(day, 15), 15);
    // And an hour of nobody where one or two are usual.
    hours.remove(&at(day, 12));
    assert_eq!(replay(&hours, day, 24, &mut Record::default()), Vec::new());
}

#[test]
fn a_quiet_night_hour_is_no_drop() {
    let (mut hours, end) = usual_site(35, 2);
    let day = end - Duration::days(1);
    // Night hours have about 2 people: none is not a drop (3 is the least).
    for hour in 0..5 {
        hours.remove(&at(day, hour));
    }
    assert_eq!(replay(&hours, day, 24, &mut Record::default()), Vec::new());
}

#[test]
fn an_episode_open_before_a_restart_is_not_told_again() {
    let (mut hours, end) = usual_site(35, 2);
    let day = end - Duration::days(1);
    hours.insert(at(day, 14), 400);
    hours.insert(at(day, 15), 400);
    let mut record = Record::default();
    let before = replay(&hours, day, 15, &mut record);
    assert_eq!(
        before,
        vec![(at(day, 14), "spike".to_owned(), State::Raised)]
    );
    // The record as kept in the store, read back by the next process.
    let mut restarted: Record =
        serde_json::from_str(&serde_json::to_string(&record).expect("written")).expect("read");
    let after = replay(&hours, at(day, 15), 9, &mut restarted);
    assert_eq!(
        after,
        vec![(at(day, 17), "spike".to_owned(), State::Recovered)]
    );
}

#[test]
fn lost_hits_are_told_once_and_their_end_after_five_calm_looks() {
    use super::alerts::{Memory, hits};
    use activity::recording::StatsSnapshot;
    let mut memory = Memory::default();
    let mut record = Record::default();
    let start = Utc.with_ymd_and_hms(2026, 12, 7, 12, 0, 0).unwrap();
    let snapshot = |dropped, lost| StatsSnapshot {
        dropped,
        lost,
        ..StatsSnapshot::default()
    };
    // (dropped, lost) at each look, a minute apart.
    let looks = [
        (0, 0),
        (0, 0),
        (3, 0),
        (3, 2),
        (3, 2),
        (3, 2),
        (3, 2),
        (3, 2),
        (3, 2),
        (3, 2),
    ];
    let mut told = Vec::new();
    for (n, (dropped, lost)) in looks.into_iter().enumerate() {
        let now = start + Duration::minutes(n as i64);
        for draft in hits(Some(snapshot(dropped, lost)), &mut memory, &mut record, now) {
            told.push((n, draft.state));
        }
    }
    assert_eq!(told, vec![(2, State::Raised), (8, State::Recovered)]);
    // A server that does not count tells nothing.
    assert!(hits(None, &mut memory, &mut record, start).is_empty());
}

#[test]
fn day_keys_that_did_not_turn_are_told_ten_minutes_after_midnight() {
    use super::alerts::day_keys;
    let mut record = Record::default();
    let yesterday = "2026-12-06".parse().expect("a day");
    let today = "2026-12-07".parse().expect("a day");
    let at = |text: &str| {
        DateTime::parse_from_rfc3339(text)
            .expect("a time")
            .with_timezone(&Utc)
    };
    assert!(day_keys(Some(yesterday), &mut record, at("2026-12-06T23:59:00Z")).is_empty());
    // The keys turn in the first seconds after midnight: not yet late.
    assert!(day_keys(Some(yesterday), &mut record, at("2026-12-07T00:05:00Z")).is_empty());
    let late = day_keys(Some(yesterday), &mut record, at("2026-12-07T00:11:00Z"));
    assert_eq!(
        late.iter().map(|d| d.state).collect::<Vec<_>>(),
        [State::Raised]
    );
    assert!(late[0].text.contains("2026-12-06"), "{}", late[0].text);
    assert!(day_keys(Some(yesterday), &mut record, at("2026-12-07T00:12:00Z")).is_empty());
    let turned = day_keys(Some(today), &mut record, at("2026-12-07T00:13:00Z"));
    assert_eq!(
        turned.iter().map(|d| d.state).collect::<Vec<_>>(),
        [State::Recovered]
    );
    assert!(day_keys(None, &mut record, at("2026-12-07T00:14:00Z")).is_empty());
}
