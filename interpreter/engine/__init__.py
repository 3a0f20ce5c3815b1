"""The engine: checked program -> compiled game -> running state, behind the small API in ``api``.

``compiler`` builds a ``CompiledGame`` once at load; ``runtime`` steps its code on a ``state``;
``api`` is what every agent, command and surface uses (``load``, ``Game``, ``State``).
"""
