//! The site's pages, one file each.

mod about;
mod admin;
mod home;
mod inventory;
mod not_found;
mod resume;

pub use about::AboutPage;
pub use admin::AdminPage;
pub use home::HomePage;
pub use inventory::InventoryPage;
pub use not_found::NotFoundPage;
pub use resume::ResumePage;
