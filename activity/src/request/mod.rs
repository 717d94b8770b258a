//! The request's decision (SPEC §1–§3, §5): the facts it reads (`view`),
//! whether a request is counted,
//! as a person, a bot or the site's own read, and the hit it becomes — with
//! the signs it shows (`evidence`), its cleaned path, its source and its
//! campaign (`campaign`, read from the query by `query`). Every
//! list the decision reads is in `rules` (with `bots`, `bot_class` and
//! `crawlers`); `known_agents` remembers decisions already made per agent.
//! `logline` takes an access-log line apart into the same request view.
//! `agent` reads what a user agent claims, and `consistency` whether the
//! request's own headers contradict it (the whole of that decision: the
//! origin's scheme, the reading kept per agent, pages and files). `kind`
//! names the kinds and their reasons.

pub mod agent;
pub mod bot_class;
pub mod bots;
pub mod caddy_log;
pub mod campaign;
pub mod classify;
pub mod consistency;
pub mod crawlers;
pub mod evidence;
pub mod goal;
pub mod hit;
pub mod kind;
mod known_agents;
mod log_request;
pub mod logline;
pub mod mark;
pub mod path;
pub mod query;
pub mod rules;
pub mod seen;
pub mod source;
pub mod store_name;
pub mod view;
