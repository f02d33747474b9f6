from __future__ import annotations

import sys

from server.cli import main

sys.exit(main())
