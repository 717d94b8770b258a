//! The read side's pure sums over stored rows (SPEC §4, §5, §7): merging
//! stores and the dashboard's figures (`report`), a day's summary and the
//! reference way of making it (`summary`), which visitor-days a view
//! counts (`filter`), the funnel's steps (`funnel`),
//! people's visits (`visits`: entry and exit pages, time on site), and the
//! numbers visitor-days are kept under (`visitor_numbers`).

pub mod filter;
pub mod funnel;
pub mod report;
pub mod summary;
pub mod visitor_numbers;
pub mod visits;
