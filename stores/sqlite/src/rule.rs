//! Each bot class with its bit, for SQLite's `json_each`.

use activity::bot_class::BotClass;

/// `[["search-engine", 1], …, ["scanner", 256], …]`.
pub(crate) fn class_bits() -> String {
    let pairs: Vec<(&str, u16)> = BotClass::ALL
        .iter()
        .map(|class| (class.as_str(), class.bit()))
        .collect();
    serde_json::to_string(&pairs).unwrap_or_else(|_| "[]".to_owned())
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_class_has_its_bit() {
        assert!(super::class_bits().contains("[\"scanner\",256]"));
    }
}
