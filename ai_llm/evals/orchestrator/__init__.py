"""`hub eval intent` (the planner's intent accuracy) and `hub bench orchestrator` (fan-out and A2A hop)."""
