"""docs_rs_feature_flags (scripts/lib.sh) gives scripts/docs-rs and
scripts/semver the features a crate's [package.metadata.docs.rs] names, as
docs.rs builds it: `all-features = true` is --all-features, a features list
is --features, none is nothing; a section that names none never turns
features on, and a `features` line outside the section is not read.

Run: python3 -m unittest discover -s scripts/tests (a step of scripts/test).
"""

import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "..", "lib.sh")


def flags(manifest_text):
    """The flags the helper prints for a manifest holding `manifest_text`."""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as manifest:
        manifest.write(manifest_text)
    try:
        out = subprocess.run(
            ["bash", "-c", f'source "{LIB}"; docs_rs_feature_flags "$1"', "_", manifest.name],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        os.unlink(manifest.name)
    return out.split()


HEAD = '[package]\nname = "x"\n\n'


class DocsRsFlags(unittest.TestCase):
    def test_all_features(self):
        text = HEAD + '[package.metadata.docs.rs]\nall-features = true\nrustdoc-args = ["--cfg", "docsrs"]\n'
        self.assertEqual(flags(text), ["--all-features"])

    def test_a_features_list(self):
        text = HEAD + '[package.metadata.docs.rs]\nfeatures = ["server", "testing"]\n'
        self.assertEqual(flags(text), ["--features", "server,testing"])

    def test_none_named(self):
        text = HEAD + '[package.metadata.docs.rs]\nrustdoc-args = ["--cfg", "docsrs"]\n'
        self.assertEqual(flags(text), [])

    def test_a_features_line_outside_the_section_is_not_read(self):
        text = (
            HEAD
            + '[package.metadata.docs.rs]\nrustdoc-args = ["--cfg", "docsrs"]\n\n'
            + '[features]\nfeatures = ["postgres"]\nall-features = true\n'
        )
        self.assertEqual(flags(text), [])


if __name__ == "__main__":
    unittest.main()
