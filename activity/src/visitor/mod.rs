//! Who, without naming anybody (SPEC §2): the client's address read through
//! trusted proxies and cut to its network (`address`), the daily visitor
//! token (`token`) made under day keys that forget (`ratchet`, `past`), and
//! the country kept (`country`, looked up in `countries`).

pub mod address;
pub mod countries;
pub mod country;
pub mod past;
pub mod ratchet;
mod short_text;
pub mod token;
