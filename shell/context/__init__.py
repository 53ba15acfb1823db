"""What the model knows and what it costs: the library behind the context meter,
``/context``, ``/compact``, ``@`` mentions and images.

No UI here (nothing imports Textual, prompt-toolkit or Rich): the TUI, the line
mode and headless mode draw what these modules compute. It sits with the shared
front-end code, above the agent, the providers and the tools it reads.
"""
