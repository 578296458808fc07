//! `zut mcp …`.
