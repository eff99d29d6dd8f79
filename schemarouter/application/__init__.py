"""The application layer: plain, typed functions that carry out one user action each, wiring the
compiler, the runtime and the project's files together. The CLI parses options and calls one of
these; tests call them directly. See README.md beside this file."""
