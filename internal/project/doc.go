// Package project holds what wisp reads from the folder it works in, once
// the project is trusted: its context files (AGENTS.md, CLAUDE.md, and
// the user's ~/.wisp/AGENTS.md) within a budget, and the starter
// AGENTS.md that /init writes. Whether a project is trusted is package
// trust's; asking a person is a frontend's.
package project
