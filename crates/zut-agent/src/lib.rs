//! The zut agent loop (being built).
