"""The model: its label, what is known of it (window, prices), switching it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anyio import Event
    from anyio.abc import TaskGroup

    from ..agent.loop import Agent
    from ..providers.base import HTTPProvider
    from ..providers.catalog import ModelInfo

from .build import resolve
from .options import ShellError
from .state import RuntimeState

WINDOW_WAIT = 1.5
"""How long the first reply waits for a local server to say its window (seconds)."""


class ModelPart(RuntimeState):
    """The model: its label, what is known of it (window, prices), switching it."""

    def __init__(self, agent: Agent, **kwargs: Any) -> None:
        from ..context.meter import UsageMeter

        super().__init__(agent, **kwargs)
        self.meter = UsageMeter(info=self.model_info)
        """How full the context is and what the replies cost (fed by :meth:`reply`)."""

    # -- the model -----------------------------------------------------------------
    @property
    def model_label(self) -> str:
        from shell.core.model import model_label

        return model_label(self.agent.model)

    @property
    def is_demo(self) -> bool:
        model = self.agent.model
        return getattr(model, "provider", "") == "demo" or getattr(model, "name", "") == "demo"

    def switch_model(self, spec: str) -> str:
        """``/model SPEC``: the next model call uses the new model; returns its label."""
        if self.agent.busy:
            raise ShellError("wait for the reply to finish (or cancel it) before switching models")
        self.agent.model = resolve(spec, self.settings)
        if self._task_group is not None:
            self.learn_model_soon(self._task_group)
        return self.model_label

    def missing_key(self) -> str | None:
        """What to say when the current model is a cloud API with no key: switching to
        it succeeded, and the next message would fail with a connection or 401 error
        that does not say the key is what is missing."""
        model = _http_model(self.agent.model)
        if model is None or model.api_key:
            return None
        if not _cloud(model.base_url):
            return None  # a local server needs no key
        where = model.api_key_env or "the config ([providers] api_key_env)"
        return f"No API key is set ({where} is empty): the next message will fail until it is set."

    def model_info(self) -> ModelInfo:
        """The current model's window, prices and vision, as far as they are known
        (the catalog, then what its server said, then ``[models.NAME]`` in the config)."""
        from ..providers.catalog import model_info

        model = self.agent.model
        name = str(getattr(model, "name", "") or "")
        provider = str(getattr(model, "provider", "") or "")
        return model_info(provider, name, overrides=self._model_overrides,
                          server=self._server_info.get(self.model_label))

    def learn_model_soon(self, task_group: TaskGroup) -> None:
        """The window known without the network (the config's ``[models.NAME]``, the
        catalog) now, the server's in the background (:meth:`learn_model`). Why now:
        ``-p`` sends its first request before any background task has run, and
        Summarization's fractions were then sized against its 128k guess (finding B12)."""
        import anyio

        self.apply_window()
        self._window_learnt = anyio.Event()
        task_group.start_soon(self.learn_model, self._window_learnt)

    async def await_window(self, limit: float = WINDOW_WAIT) -> None:
        """Wait (at most ``limit`` seconds, never blocking the loop) for the server's
        window while it is being asked and a fraction of the window is what decides
        when to summarise; a server slower than that is not waited for."""
        import anyio

        learnt = self._window_learnt
        if learnt is None or learnt.is_set() or not self._sizes_by_fraction():
            return
        with anyio.move_on_after(limit):
            await learnt.wait()

    def _sizes_by_fraction(self) -> bool:
        stack = self.agent.middleware
        return any(
            stack.is_enabled(mw.name) and getattr(mw, "sizes_by_fraction", lambda: False)()
            for mw in stack
        )

    async def learn_model(self, done: Event | None = None) -> None:
        """Ask the model's server for its window (in the background, once per model):
        local servers say what they really run with, which no catalog can know. The
        window then also sizes ``Summarization``'s fractions (``max_input_tokens``)."""
        try:
            model, label = self.agent.model, self.model_label
            http = _http_model(model)
            if http is not None and label not in self._server_info and not _cloud(http.base_url):
                from ..providers.catalog import server_info

                self._server_info[label] = await server_info(http)
            self.apply_window()
        finally:
            if done is not None:
                done.set()

    def apply_window(self) -> None:
        """The model's window as known now, as its ``max_input_tokens``, unless that
        was set by someone else (a config, a test); a window set here earlier gives
        way to a better-known one (the server's, after the catalog's)."""
        model = self.agent.model
        window = self.model_info().context_window
        current = getattr(model, "max_input_tokens", None)
        applied = self._window_applied
        ours = applied is not None and applied[0] is model and applied[1] == current
        if not window or (current is not None and not ours):
            return
        try:
            model.max_input_tokens = window  # type: ignore[attr-defined]
        except AttributeError:  # a model class with slots: Summarization uses its default
            return
        self._window_applied = (model, window)

    @property
    def model_origin(self) -> str:
        """Why this model was chosen (``from --model``, ``no provider configured``)."""
        return str(getattr(self.agent.model, "origin", ""))

    async def list_models(self) -> dict[str, list[str] | str]:
        """Per provider, its models, or why they could not be listed."""
        from ..providers.registry import list_models

        return await list_models(self.settings)


def _http_model(model: object) -> HTTPProvider | None:
    """``model`` when it speaks HTTP to a server. The providers' module is loaded before
    any such model exists, so with none loaded (the demo, a scripted model) httpx stays
    unimported at start-up."""
    import sys

    base = sys.modules.get("shell.providers.base")
    if base is not None and isinstance(model, base.HTTPProvider):
        http: HTTPProvider = model
        return http
    return None


def _cloud(base_url: str) -> bool:
    """A provider's own API, whose ``/models`` says no window (the catalog knows them)."""
    from urllib.parse import urlsplit

    host = urlsplit(base_url).hostname or ""
    return host in ("api.openai.com", "api.anthropic.com")
