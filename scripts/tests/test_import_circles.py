"""scripts/import-circles fails on what it guards against: a circle between
a crate's files (through names that contain "as", and code after a test
module), and a file named by a docs page that is not in the tree; it passes
on the same crate without them.

Run: python3 -m unittest discover -s scripts/tests (a step of scripts/test).
"""

import importlib.machinery
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "import-circles")
_loader = importlib.machinery.SourceFileLoader("import_circles", SCRIPT)
_spec = importlib.util.spec_from_loader("import_circles", _loader)
circles_tool = importlib.util.module_from_spec(_spec)
_loader.exec_module(circles_tool)

# A crate whose files form no circle: `classify` (a name holding "as")
# reads `bot_class`, and `bot_class` reads `classify` only in its tests.
CLEAN = {
    "lib.rs": "pub mod bot_class;\npub mod classify;\npub mod rules;\n"
    "pub use classify::Reading;\n",
    "classify.rs": "use crate::bot_class::{BotClass as Class, self};\n"
    "pub struct Reading;\n"
    "pub fn read() -> Class { bot_class::first() }\n",
    "bot_class.rs": "pub struct BotClass;\n"
    "pub fn first() -> BotClass { BotClass }\n"
    "#[cfg(test)]\nmod tests {\n    use crate::classify::Reading;\n"
    "    #[test]\n    fn reads() { let _ = Reading; }\n}\n",
    "rules.rs": "pub struct Rules;\n",
}


def crate(files):
    """A crate folder holding `files` under src/; its path."""
    folder = tempfile.mkdtemp()
    for name, text in files.items():
        path = os.path.join(folder, "src", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    return folder


class ImportCircles(unittest.TestCase):
    def test_a_crate_without_a_circle_passes(self):
        self.assertEqual(circles_tool.circles(crate(CLEAN)), [])

    def test_a_circle_through_names_holding_as_is_found(self):
        files = dict(CLEAN)
        files["bot_class.rs"] = "use crate::classify::{Reading as Read};\n" + files["bot_class.rs"]
        self.assertEqual(
            circles_tool.circles(crate(files)),
            [[("bot_class",), ("classify",)]],
        )

    def test_a_use_after_a_test_module_is_read(self):
        files = dict(CLEAN)
        files["bot_class.rs"] += "pub fn last() -> crate::Reading { crate::Reading }\n"
        self.assertEqual(
            circles_tool.circles(crate(files)),
            [[("bot_class",), ("classify",)]],
            "the re-exported Reading leads to classify",
        )

    def test_a_circle_of_three_through_super_and_a_glob_is_found(self):
        files = dict(CLEAN)
        files["rules.rs"] = "use super::classify::*;\npub struct Rules;\n"
        files["bot_class.rs"] = "use super::rules::Rules as R;\n" + files["bot_class.rs"]
        self.assertEqual(
            circles_tool.circles(crate(files)),
            [[("bot_class",), ("classify",), ("rules",)]],
        )

    def test_the_script_exits_1_on_a_circle_and_0_without(self):
        files = dict(CLEAN)
        files["bot_class.rs"] = "use crate::classify::Reading;\n" + files["bot_class.rs"]
        planted = crate(files)
        status = os.system(f"{SCRIPT} {planted} >/dev/null")
        self.assertEqual(os.waitstatus_to_exitcode(status), 1)
        status = os.system(f"{SCRIPT} {crate(CLEAN)} >/dev/null")
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)

    def test_a_page_naming_a_missing_file_is_found(self):
        folder = tempfile.mkdtemp()
        page = os.path.join(folder, "page.md")
        with open(page, "w", encoding="utf-8") as out:
            out.write(
                "The tool: `scripts/import-circles`; the test: "
                "`scripts/tests/test_import_circles.py`; gone: `server/src/nowhere.rs`; "
                "a crate's own path: `src/config/`; not a path: `Builder::build`.\n"
            )
        named, missing = circles_tool.named_files(page)
        self.assertIn("scripts/import-circles", named)
        self.assertNotIn("Builder::build", named)
        self.assertEqual(missing, ["server/src/nowhere.rs"])


if __name__ == "__main__":
    unittest.main()
