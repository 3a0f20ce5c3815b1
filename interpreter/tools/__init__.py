"""The commands and tools built on the engine's API: the command line, terminal play, simulation
and benchmarks, scenario tests, validation with its report, and plain-English explanations."""
