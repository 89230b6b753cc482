"""Online evaluation (`assay watch`): an agent's own OpenTelemetry traces, received over OTLP/HTTP,
assembled, read by the OpenInference and OTel GenAI conventions, and scored as the samples of an
online run through the same sample pipeline as `assay run`."""
