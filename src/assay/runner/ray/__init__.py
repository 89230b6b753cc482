"""The Ray executor (`executor: ray`): targets and code evaluators on a Ray cluster's workers,
the coordinator keeping the store and the pipeline (docs/scale.md). Imported only when a spec
asks for it: `import ray` takes seconds."""
