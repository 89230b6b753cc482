"""Traces: one span's life in one place — span ids and rows (`spans`), the attributes trace
viewers read (`semconv`: OpenInference and OpenTelemetry GenAI; `semconv_llm`: a model
request's own), the root spans a score run's samples imply (`implied`), OTLP out of the store
(`otlp_out`) and OTLP in from an agent (`otlp_in`, for `assay watch`). The run engine and the
online receiver use it; it imports no run, no watch and no UI (an import contract)."""
