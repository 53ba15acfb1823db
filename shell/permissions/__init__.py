"""The one permission policy and what enforces it (no UI here).

- :mod:`.policy`: every tool call's verdict (allow, ask, deny) from the mode
  (:mod:`.modes`) and the rules (:mod:`.rules`, stored by :mod:`.store`; shell
  commands split by :mod:`.shellsplit`); :mod:`.preview` shows what a call changes,
  :mod:`.suggest` the rules "always" would keep.
- :mod:`.trust`: a workspace's own config (``.mcp.json``, ``.agent-shell/``) is
  used only once the user trusted it, per path and file hash.
- :mod:`.paths`: where a path lands (``~``, symlinks, ``..``), the one answer every
  check above and below uses.
- :mod:`.sandbox`: ``run_shell`` under bubblewrap on Linux; :mod:`.runslater` keeps
  what runs later as the user out of its reach, :mod:`.quarantine` keeps (30 days)
  what a command planted there anyway, for ``/quarantine`` to show and put back.
- :mod:`.network`: the address guard of network tools (no loopback, private,
  link-local or metadata addresses unless a rule names the host).

Import the submodules directly; this package imports nothing at load time so that
asking one question (``is_trusted``) does not pay for the others.
"""
