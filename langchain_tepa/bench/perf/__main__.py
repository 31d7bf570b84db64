"""``python -m langchain_tepa.bench.perf``: the same as ``tepa-bench perf``."""

from __future__ import annotations

import sys

from langchain_tepa.bench.perf.command import main

sys.exit(main())
