//! Local scripted LLM server for tests (being built).
