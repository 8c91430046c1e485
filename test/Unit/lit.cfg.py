# -*- Python -*-
# gtest binaries built under test/Unit, run test by test.
import os

import lit.formats

config.name = "TP-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.tp_obj_root, "test", "Unit")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
