//! `zut mcp serve`.
