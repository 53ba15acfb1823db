"""What every front end shares that is not drawing: how an approval reads, which
keys answer it (no UI library here; each front end styles the lines its own way)."""
