//! Plausible's Stats API v1, read from the query string:
//! `realtime/visitors`, `aggregate`, `timeseries` and `breakdown`, each a
//! [`Query`] of the read side put in v1's shapes.

use activity::filter::{Condition, Dimension, Filter, Op};
use chrono::NaiveDate;
use reading::query::{Breakdown, Metric, Query, QueryRow, SUMMED_ROWS};
use serde_json::{Map, Value, json};

use super::words::{self, BadRequest};

/// The most rows a breakdown answers at once (Plausible's limit too).
const MAX_LIMIT: usize = 1000;

/// A v1 request's parameters, by name (the last one of a name counts).
pub(super) struct Params(Vec<(String, String)>);

impl Params {
    pub(super) fn parse(query: &str) -> Result<Self, BadRequest> {
        serde_urlencoded::from_str(query)
            .map(Self)
            .map_err(|_| BadRequest::new("The query string cannot be read"))
    }

    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The endpoints' query, before the store's condition is added.
pub(super) fn query(
    endpoint: &str,
    params: &Params,
    today: NaiveDate,
) -> Result<(Query, Option<String>), BadRequest> {
    let (first, last) = words::period(params.get("period"), params.get("date"), today)?;
    let metrics = metrics(params.get("metrics"))?;
    let filter = filters(params.get("filters").unwrap_or(""))?;
    let (by, property) = match endpoint {
        "aggregate" => (None, None),
        "timeseries" => match params.get("interval").unwrap_or("date") {
            "date" | "day" => (Some(Breakdown::Day), None),
            "month" => (Some(Breakdown::Month), None),
            other => {
                return Err(BadRequest::new(format!(
                    "Invalid value for interval '{}'. Allowed: date, month",
                    other.chars().take(24).collect::<String>()
                )));
            }
        },
        _ => {
            let property = params.get("property").ok_or_else(|| {
                BadRequest::new("The `property` parameter is required to get a breakdown")
            })?;
            let dimension = words::dimension_of(property)?;
            (Some(Breakdown::By(dimension)), Some(property.to_owned()))
        }
    };
    let number = |name: &str, default: usize| -> Result<usize, BadRequest> {
        params.get(name).map_or(Ok(default), |text| {
            text.parse::<usize>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| BadRequest::new(format!("`{name}` must be a whole number from 1")))
        })
    };
    let limit = number("limit", 100)?;
    if limit > MAX_LIMIT {
        return Err(BadRequest::new(format!("`limit` is at most {MAX_LIMIT}")));
    }
    let page = number("page", 1)?;
    let query = Query {
        first,
        last,
        filter,
        metrics,
        by,
        limit,
        offset: (page - 1).saturating_mul(limit),
    };
    if query.sums_per_row() && limit > SUMMED_ROWS {
        return Err(BadRequest::new(format!(
            "`limit` is at most {SUMMED_ROWS} when a breakdown's metrics are more than visitors"
        )));
    }
    Ok((query, property))
}

/// `metrics=visitors,pageviews` (default: visitors).
pub(super) fn metrics(text: Option<&str>) -> Result<Vec<Metric>, BadRequest> {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return Ok(vec![Metric::Visitors]);
    };
    text.split(',').map(|name| metric(name.trim())).collect()
}

pub(super) fn metric(name: &str) -> Result<Metric, BadRequest> {
    Metric::of_name(name).ok_or_else(|| {
        BadRequest::new(format!(
            "The metric `{}` is not recognized. Find valid metrics from the documentation: visitors, visits, pageviews, views_per_visit, bounce_rate, visit_duration",
            name.chars().take(40).collect::<String>()
        ))
    })
}

/// `visit:source==GitHub;event:page==/about|/blog`: conditions ANDed,
/// `|` between values; `==` is, `!=` is not, `~` contains, `!~` does not.
pub(super) fn filters(text: &str) -> Result<Filter, BadRequest> {
    let mut filter = Filter::none();
    for part in text.split(';').filter(|part| !part.trim().is_empty()) {
        let (property, op, values) = [
            ("!=", Op::IsNot),
            ("==", Op::Is),
            ("!~", Op::ContainsNot),
            ("~", Op::Contains),
        ]
        .into_iter()
        .find_map(|(mark, op)| {
            let (property, values) = part.split_once(mark)?;
            Some((property.trim(), op, values))
        })
        .ok_or_else(|| {
            BadRequest::new(
                "Invalid filter expression: write property==value, !=, ~ or !~, joined by ;",
            )
        })?;
        let dimension = words::dimension_of(property)?;
        filter = filter
            .with(Condition {
                dimension,
                op,
                values: values
                    .split('|')
                    .map(|v| words::to_filter(dimension, v.trim()))
                    .collect(),
            })
            .map_err(|error| BadRequest::new(format!("Invalid filter: {error}")))?;
    }
    Ok(filter)
}

/// A metric's figure as JSON: whole numbers as integers.
pub(super) fn number(figure: f64) -> Value {
    if figure.fract() == 0.0 && figure.abs() < 9.0e15 {
        json!(figure as i64)
    } else {
        json!(figure)
    }
}

/// v1's answer to `endpoint` from the query's rows.
pub(super) fn shape(
    endpoint: &str,
    query: &Query,
    property: Option<&str>,
    rows: &[QueryRow],
) -> Value {
    let named = |row: &QueryRow| -> Map<String, Value> {
        query
            .metrics
            .iter()
            .zip(&row.figures)
            .map(|(metric, figure)| (metric.name().to_owned(), number(*figure)))
            .collect()
    };
    match endpoint {
        "aggregate" => {
            let results: Map<String, Value> = rows
                .first()
                .map(|row| {
                    named(row)
                        .into_iter()
                        .map(|(name, value)| (name, json!({ "value": value })))
                        .collect()
                })
                .unwrap_or_default();
            json!({ "results": results })
        }
        "timeseries" => {
            let results: Vec<Value> = rows
                .iter()
                .map(|row| {
                    let mut fields = named(row);
                    fields.insert("date".to_owned(), json!(row.value));
                    Value::Object(fields)
                })
                .collect();
            json!({ "results": results })
        }
        _ => {
            let property = property.unwrap_or("event:page");
            let dimension = words::dimension_of(property).unwrap_or(Dimension::Page);
            let key = words::result_key(property);
            let results: Vec<Value> = rows
                .iter()
                .map(|row| {
                    let mut fields = named(row);
                    let value = row.value.as_deref().unwrap_or_default();
                    fields.insert(key.to_owned(), json!(words::from_filter(dimension, value)));
                    Value::Object(fields)
                })
                .collect();
            json!({ "results": results })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_filters_read_as_conditions() {
        let filter = filters("visit:source==GitHub;event:page==/about|/blog;visit:country!=US")
            .expect("a filter");
        assert_eq!(
            filter.to_query(),
            Filter::from_query("source=github&page=/about|/blog&country=!US")
                .expect("the same")
                .to_query()
        );
        assert!(filters("visit:browser==Firefox").is_err());
        assert!(filters("event:page/about").is_err());
        assert!(filters("event:page==").is_err());
    }

    #[test]
    fn metrics_are_named_as_plausible_names_them() {
        assert_eq!(metrics(None).expect("the default"), vec![Metric::Visitors]);
        assert_eq!(
            metrics(Some("visitors,bounce_rate")).expect("two"),
            vec![Metric::Visitors, Metric::BounceRate]
        );
        let error = metrics(Some("visitors,events")).expect_err("unknown");
        assert!(error.0.contains("`events`"), "{}", error.0);
    }
}
