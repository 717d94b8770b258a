//! Plausible's Stats API v2: `POST {tab}/api/v2/query` with a JSON body
//! (`site_id`, `metrics`, `date_range`, `dimensions`, `filters`,
//! `order_by`, `pagination`), answered as `{results: [{metrics,
//! dimensions}], meta, query}`. One dimension at most; filters are ANDed
//! conditions whose values are ORed, so `or` and `not` are taken where
//! they come to that (`or` over one dimension, `not` of `is` or of such
//! an `or`).

use activity::filter::{Condition, Dimension, Filter, Op};
use chrono::NaiveDate;
use reading::query::{Breakdown, Metric, Query, QueryRow, SUMMED_ROWS};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Asked;
use super::v1;
use super::words::{self, BadRequest};

/// The most rows a query answers at once.
const MAX_LIMIT: usize = 10_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    site_id: Option<String>,
    metrics: Vec<String>,
    date_range: Value,
    #[serde(default)]
    dimensions: Vec<String>,
    #[serde(default)]
    filters: Vec<Value>,
    #[serde(default)]
    order_by: Vec<(String, String)>,
    #[serde(default)]
    pagination: Option<Pagination>,
    #[serde(default)]
    include: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Pagination {
    #[serde(default = "default_limit")]
    limit: usize,
    #[serde(default)]
    offset: usize,
}

fn default_limit() -> usize {
    10_000
}

impl Asked {
    /// A v2 query's body, read.
    pub(super) fn parse(bytes: &[u8], today: NaiveDate) -> Result<Self, BadRequest> {
        let body: Body = serde_json::from_slice(bytes).map_err(|error| {
            BadRequest::new(format!(
                "Invalid request body: {}",
                short(&error.to_string())
            ))
        })?;
        let _ = &body.include;
        if body.metrics.is_empty() {
            return Err(BadRequest::new("#/metrics: at least one metric is needed"));
        }
        let metrics: Vec<Metric> = body
            .metrics
            .iter()
            .map(|name| v1::metric(name))
            .collect::<Result<_, _>>()?;
        let (first, last) = match &body.date_range {
            Value::String(period) => words::period(Some(period), None, today)?,
            Value::Array(days) if days.len() == 2 => {
                fn day(value: &Value) -> Option<&str> {
                    value.as_str().map(|text| text.get(..10).unwrap_or(text))
                }
                match (day(&days[0]), day(&days[1])) {
                    (Some(from), Some(to)) => {
                        words::period(Some("custom"), Some(&format!("{from},{to}")), today)?
                    }
                    _ => return Err(BadRequest::new("#/date_range: two ISO 8601 dates")),
                }
            }
            _ => {
                return Err(BadRequest::new(
                    "#/date_range: day, 7d, 30d, month, 6mo, 12mo or [from, to]",
                ));
            }
        };
        let by = match body.dimensions.as_slice() {
            [] => None,
            [one] => Some(match one.as_str() {
                "time" | "time:day" => Breakdown::Day,
                "time:month" => Breakdown::Month,
                "time:hour" => Breakdown::Hour,
                property => Breakdown::By(words::dimension_of(property)?),
            }),
            _ => {
                return Err(BadRequest::new(
                    "#/dimensions: whocomes breaks a query down by one dimension at a time",
                ));
            }
        };
        if by == Some(Breakdown::Hour)
            && let Some(name) = body.metrics.iter().find(|name| *name != "visitors")
        {
            return Err(BadRequest::new(format!(
                "#/metrics: {name} is not kept by the hour; time:hour answers visitors (people, in the UTC hour of their first page load)"
            )));
        }
        let mut filter = Filter::none();
        for value in &body.filters {
            for condition in conditions(value)? {
                filter = filter
                    .with(condition)
                    .map_err(|error| BadRequest::new(format!("#/filters: {error}")))?;
            }
        }
        let asked_pagination = body.pagination.is_some();
        let pagination = body.pagination.unwrap_or(Pagination {
            limit: default_limit(),
            offset: 0,
        });
        if pagination.limit == 0 || pagination.limit > MAX_LIMIT {
            return Err(BadRequest::new(format!(
                "#/pagination/limit: 1 to {MAX_LIMIT}"
            )));
        }
        let order = order(&body.order_by, &metrics, &body.dimensions)?;
        let ordered = order.is_some();
        let mut query = Query {
            first,
            last,
            filter,
            metrics,
            by,
            // Ordered otherwise than by visitors: every row, then a page.
            limit: if ordered { MAX_LIMIT } else { pagination.limit },
            offset: if ordered { 0 } else { pagination.offset },
        };
        // Rows summed one by one: at most SUMMED_ROWS, a page of them
        // unless one is asked for (and more is refused).
        if query.sums_per_row() {
            if asked_pagination && pagination.limit > SUMMED_ROWS {
                return Err(BadRequest::new(format!(
                    "#/pagination/limit: at most {SUMMED_ROWS} when a breakdown's metrics are more than visitors"
                )));
            }
            query.limit = query.limit.min(SUMMED_ROWS);
        }
        let asked = json!({
            "site_id": body.site_id,
            "metrics": body.metrics,
            "date_range": [first.to_string(), last.to_string()],
            "dimensions": body.dimensions,
            "filters": body.filters,
        });
        let dimension = match by {
            Some(Breakdown::By(dimension)) => Some(dimension),
            _ => None,
        };
        Ok(Asked {
            site: body.site_id,
            realtime: false,
            query,
            shape: Box::new(move |query, rows| {
                let mut rows: Vec<&QueryRow> = rows.iter().collect();
                if let Some((at, descending)) = order {
                    rows.sort_by(|a, b| {
                        let by = match at {
                            Some(at) => a.figures[at].total_cmp(&b.figures[at]),
                            None => a.value.cmp(&b.value),
                        };
                        if descending { by.reverse() } else { by }
                    });
                    rows = rows
                        .into_iter()
                        .skip(pagination.offset)
                        .take(pagination.limit)
                        .collect();
                }
                let results: Vec<Value> = rows
                    .iter()
                    .map(|row| {
                        let dimensions: Vec<Value> = row
                            .value
                            .iter()
                            .map(|value| {
                                json!(dimension.map_or_else(
                                    || value.clone(),
                                    |dimension| words::from_filter(dimension, value)
                                ))
                            })
                            .collect();
                        let metrics: Vec<Value> = row
                            .figures
                            .iter()
                            .map(|figure| v1::number(*figure))
                            .collect();
                        json!({ "metrics": metrics, "dimensions": dimensions })
                    })
                    .collect();
                let _ = query;
                json!({ "results": results, "meta": {}, "query": asked })
            }),
        })
    }
}

/// `order_by: [["visitors", "desc"]]`: the metric's place (`None`: the
/// dimension) and whether descending; `None` when it is the default (a
/// dimension by visitors, most first; time oldest first).
fn order(
    order_by: &[(String, String)],
    metrics: &[Metric],
    dimensions: &[String],
) -> Result<Option<(Option<usize>, bool)>, BadRequest> {
    let Some((name, direction)) = order_by.first() else {
        return Ok(None);
    };
    if order_by.len() > 1 {
        return Err(BadRequest::new("#/order_by: one ordering at a time"));
    }
    let descending = match direction.as_str() {
        "desc" => true,
        "asc" => false,
        _ => return Err(BadRequest::new("#/order_by: asc or desc")),
    };
    let at = if dimensions.iter().any(|dimension| dimension == name) {
        None
    } else {
        let metric = v1::metric(name)?;
        Some(metrics.iter().position(|m| *m == metric).ok_or_else(|| {
            BadRequest::new(format!(
                "#/order_by: `{}` is not among the query's metrics",
                metric.name()
            ))
        })?)
    };
    Ok(Some((at, descending)))
}

/// A filter of v2 as ANDed conditions.
fn conditions(value: &Value) -> Result<Vec<Condition>, BadRequest> {
    let refused = || {
        BadRequest::new(
            "#/filters: whocomes takes [op, dimension, [values]] (is, is_not, contains, contains_not), \
             and of them, or over one dimension, and not of is or contains",
        )
    };
    let items = value.as_array().ok_or_else(refused)?;
    let word = items.first().and_then(Value::as_str).ok_or_else(refused)?;
    match word {
        "and" => {
            let inner = items.get(1).and_then(Value::as_array).ok_or_else(refused)?;
            let mut all = Vec::new();
            for item in inner {
                all.extend(conditions(item)?);
            }
            Ok(all)
        }
        "or" => {
            let inner = items.get(1).and_then(Value::as_array).ok_or_else(refused)?;
            let mut merged: Option<Condition> = None;
            for item in inner {
                let [condition] =
                    <[Condition; 1]>::try_from(conditions(item)?).map_err(|_| refused())?;
                match &mut merged {
                    None => merged = Some(condition),
                    Some(so_far)
                        if so_far.dimension == condition.dimension
                            && so_far.op == condition.op
                            && !condition.op.negated() =>
                    {
                        so_far.values.extend(condition.values);
                    }
                    Some(_) => return Err(refused()),
                }
            }
            merged.map(|condition| vec![condition]).ok_or_else(refused)
        }
        "not" => {
            let [condition] =
                <[Condition; 1]>::try_from(conditions(items.get(1).ok_or_else(refused)?)?)
                    .map_err(|_| refused())?;
            let op = match condition.op {
                Op::Is => Op::IsNot,
                Op::Contains => Op::ContainsNot,
                _ => return Err(refused()),
            };
            Ok(vec![Condition { op, ..condition }])
        }
        op => {
            let op = words::op_of(op).ok_or_else(refused)?;
            let property = items.get(1).and_then(Value::as_str).ok_or_else(refused)?;
            let dimension: Dimension = words::dimension_of(property)?;
            let values: Vec<String> = items
                .get(2)
                .and_then(Value::as_array)
                .ok_or_else(refused)?
                .iter()
                .map(|value| {
                    value
                        .as_str()
                        .map(|text| words::to_filter(dimension, text))
                        .ok_or_else(refused)
                })
                .collect::<Result<_, _>>()?;
            Ok(vec![Condition {
                dimension,
                op,
                values,
            }])
        }
    }
}

fn short(text: &str) -> String {
    text.chars().take(120).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter_of(filters: Value) -> Result<String, BadRequest> {
        let mut filter = Filter::none();
        for value in filters.as_array().expect("a list") {
            for condition in conditions(value)? {
                filter = filter.with(condition).expect("within bounds");
            }
        }
        Ok(filter.to_query())
    }

    #[test]
    fn v2_filters_come_to_anded_conditions() {
        let same = |text: &str| Filter::from_query(text).expect("a filter").to_query();
        assert_eq!(
            filter_of(json!([
                ["is", "visit:source", ["GitHub"]],
                ["contains", "event:page", ["/blog"]]
            ]))
            .expect("two"),
            same("source=github&page=~/blog")
        );
        assert_eq!(
            filter_of(json!([[
                "or",
                [["is", "event:page", ["/a"]], ["is", "event:page", ["/b"]]]
            ]]))
            .expect("one dimension"),
            same("page=/a|/b")
        );
        assert_eq!(
            filter_of(json!([["not", ["is", "visit:country", ["us"]]]])).expect("not"),
            same("country=!US")
        );
        assert_eq!(
            filter_of(json!([[
                "and",
                [["is_not", "visit:source", ["Direct / None"]]]
            ]]))
            .expect("and"),
            same("source=!typed")
        );
        for refused in [
            json!([[
                "or",
                [
                    ["is", "event:page", ["/a"]],
                    ["is", "visit:source", ["GitHub"]]
                ]
            ]]),
            json!([["not", ["is_not", "event:page", ["/a"]]]]),
            json!([["matches", "event:page", ["^/a"]]]),
            json!([["is", "visit:browser", ["Firefox"]]]),
            json!([["is", "event:page", "/a"]]),
        ] {
            assert!(filter_of(refused.clone()).is_err(), "{refused}");
        }
    }
}
