#!/usr/bin/env python
"""Start the whole hub: embedded Postgres, embedding server, search gateway, agents, backend.

Same as `hub up`. See `python start_agents.py --help`.
"""

import sys

from ai_llm.hub.launcher import main

if __name__ == "__main__":
    sys.exit(main())
