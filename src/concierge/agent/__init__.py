"""The agent: a loop that lets a model (or the offline planner) call tools through the pipeline."""
