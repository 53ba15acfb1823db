"""What every front end shares that is not drawing (no UI library here).

- :mod:`.reply`: a reply's events reduced to its state (each tool call's status,
  arguments, decision, result and time; the phase a status line shows; usage;
  how it ended), so the TUI, the line mode and headless mode show the same facts;
- :mod:`.approval`: how an approval reads, the keys that answer it, the default
  rejection;
- :mod:`.summary`: the one argument summary;
- :mod:`.exits`: the one exit-code table;
- :mod:`.paced`: reading a reply's events without starving the event loop.

Each front end only draws what these say, in its own way.
"""
