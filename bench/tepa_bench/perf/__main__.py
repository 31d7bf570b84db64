"""``python -m tepa_bench.perf``: the same as ``tepa-bench perf``."""

from __future__ import annotations

import sys

from tepa_bench.perf.command import main

sys.exit(main())
