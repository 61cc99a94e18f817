"""Every `hub eval …` and `hub bench …` implementation, out of the runtime packages.

One module (or sub-package) per area registers its commands through `register(eval_app, bench_app)`
(`ai_llm/hub/cli.py` lists them). `harness.py` starts what a run needs — an embedding server, an embedded
Postgres, local HTTP servers, the whole offline hub — on ephemeral ports and cleans up; results are printed
with `ai_llm.common.cli_output.emit`. The runtime packages never import from here.
"""
