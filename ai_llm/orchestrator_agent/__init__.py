"""Plans each request into an IntentPlan and runs it over the hub's agents."""
