//! The alerts' outbox and channels against a real HTTP receiver on
//! loopback: a channel that fails is tried again after 2 s, then 4 s, and
//! a notice it finally takes is sent once; the record survives a round
//! trip through a store; at most `WAITING` notices wait; no channel says
//! its URL's secret path or a password, and plain SMTP to another machine
//! is refused.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use activity::StoreName;
use activity::store::{ActivityStore, MemoryStore, Retention};
use chrono::{Duration, TimeZone as _, Utc};
use whocomes::notify::ChannelConfig;
use whocomes::notify::channel::Channel;
use whocomes::notify::notice::{Draft, State};
use whocomes::notify::outbox::{Record, WAITING, channel_key};

/// A receiver that answers 503 to the first `failures` posts, then 200;
/// it counts every post.
async fn receiver(failures: usize) -> (String, Arc<AtomicUsize>) {
    let posts = Arc::new(AtomicUsize::new(0));
    let counted = posts.clone();
    let app = axum::Router::new().route(
        "/hook/{secret}",
        axum::routing::post(move || {
            let posts = counted.clone();
            async move {
                if posts.fetch_add(1, Ordering::SeqCst) < failures {
                    http::StatusCode::SERVICE_UNAVAILABLE
                } else {
                    http::StatusCode::OK
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let port = listener.local_addr().expect("an address").port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://127.0.0.1:{port}/hook/s3cret-path"), posts)
}

fn draft(n: usize) -> Draft {
    Draft {
        topic: "spike".to_owned(),
        state: State::Raised,
        subject: format!("a spike, {n}"),
        text: "people".to_owned(),
        html: None,
        chart: None,
    }
}

fn opened(config: &ChannelConfig) -> Vec<(String, Box<dyn Channel>)> {
    let channel = config.open().expect("opens");
    vec![(channel_key(0, channel.as_ref()), channel)]
}

#[tokio::test]
async fn a_failing_channel_is_tried_again_later_and_sent_once() {
    let (url, posts) = receiver(2).await;
    let channels = opened(&ChannelConfig::Webhook { url });
    let owed = vec![channels[0].0.clone()];
    let start = Utc.with_ymd_and_hms(2026, 12, 7, 12, 0, 0).unwrap();
    let mut record = Record::default();
    record.post(draft(1), owed, start);

    let first = record.send_due(&channels, start).await;
    assert_eq!((first.sent, first.failed), (0, 1));
    let failure = first.last_failure.expect("why it failed");
    assert!(failure.contains("503"), "{failure}");
    assert!(
        !failure.contains("s3cret"),
        "the URL's path was said: {failure}"
    );
    assert_eq!(record.next_due(), Some(start + Duration::seconds(2)));

    // Not before it is due.
    let early = record
        .send_due(&channels, start + Duration::seconds(1))
        .await;
    assert_eq!((early.sent, early.failed), (0, 0));
    assert_eq!(posts.load(Ordering::SeqCst), 1);

    let second = record
        .send_due(&channels, start + Duration::seconds(2))
        .await;
    assert_eq!((second.sent, second.failed), (0, 1));
    assert_eq!(record.next_due(), Some(start + Duration::seconds(6)));

    let third = record
        .send_due(&channels, start + Duration::seconds(6))
        .await;
    assert_eq!((third.sent, third.failed), (1, 0));
    assert!(record.waiting.is_empty());
    assert_eq!(record.next_due(), None);

    // Nothing is owed any more: nothing is sent again.
    let after = record
        .send_due(&channels, start + Duration::seconds(60))
        .await;
    assert_eq!((after.sent, after.failed), (0, 0));
    assert_eq!(posts.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn the_record_is_read_back_as_kept_and_what_waits_is_bounded() {
    let store: Arc<dyn ActivityStore> = Arc::new(MemoryStore::new(
        StoreName::parse("site").expect("a name"),
        Retention::default(),
    ));
    let (url, _) = receiver(usize::MAX).await;
    let channels = opened(&ChannelConfig::Webhook { url });
    let owed = vec![channels[0].0.clone()];
    let now = Utc::now();
    let mut record = Record::default();
    for n in 0..WAITING + 5 {
        record.post(draft(n), owed.clone(), now);
    }
    assert_eq!(record.waiting.len(), WAITING);
    assert_eq!(
        record.waiting[0].notice.subject, "a spike, 5",
        "the oldest went first"
    );
    assert_eq!(record.next_id, (WAITING + 5) as u64);

    assert!(record.save(&store).await);
    assert_eq!(Record::load(&store).await, record);
    // A note that is not a record is started afresh, and said.
    store
        .keep_cached(whocomes::notify::outbox::NOTE, "{not json")
        .await
        .expect("kept");
    assert_eq!(Record::load(&store).await, Record::default());
}

#[test]
fn channels_never_say_a_secret_and_plain_smtp_stays_on_this_machine() {
    let slack: ChannelConfig = "slack=https://hooks.slack.com/services/T0/B0/s3cret"
        .parse()
        .expect("a Slack webhook");
    let said = slack.open().expect("opens").describe();
    assert_eq!(said, "Slack webhook at hooks.slack.com");
    assert_eq!(format!("{slack:?}"), "Slack");

    let mail = |url: &str| ChannelConfig::Mail {
        url: url.to_owned(),
        from: "whocomes@example.test".to_owned(),
        to: vec!["owner@example.test".to_owned()],
    };
    let refused = mail("smtp://user:pa55word@mail.example.test:25")
        .open()
        .expect_err("plain SMTP to another machine is refused");
    assert!(refused.contains("?tls=required"), "{refused}");
    assert!(!refused.contains("pa55word"), "{refused}");
    for taken in [
        "smtp://127.0.0.1:2525",
        "smtp://localhost:2525",
        "smtp://user:pa55word@mail.example.test:587?tls=required",
        "smtps://mail.example.test",
    ] {
        let channel = mail(taken).open().expect(taken);
        assert!(!channel.describe().contains("pa55word"));
    }
    assert!("ftp://example.test/hook".parse::<ChannelConfig>().is_err());
    let bad_sender = ChannelConfig::Mail {
        url: "smtp://127.0.0.1:2525".to_owned(),
        from: "not an address".to_owned(),
        to: vec!["owner@example.test".to_owned()],
    };
    assert!(bad_sender.open().is_err());
}
