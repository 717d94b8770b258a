//! Integration tests: the real site, started in-process on port 0 (and, for
//! signals, the real binary). One test binary, modules by subject.

mod admin;
mod annotations;
mod attacks;
mod bounds;
mod cosmos;
mod countries;
mod deploy;
mod deploy_follow;
mod deploy_log;
mod edge;
mod explain;
mod export;
mod faults;
mod filters;
mod first_run;
mod folder;
mod funnel;
mod helpers;
mod impostors;
mod leaks;
mod notify;
mod operations;
mod outage;
mod real_clients;
mod recording;
mod routes;
mod signals;
mod stats_api;
mod views;
