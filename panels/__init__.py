"""What the Sidebar draws: the generate panel and the job list, plus the properties they keep.

* ``props`` — what the Sidebar remembers: the panel's inputs per scene, the list's rows.
* ``generate`` — the Generate panel, its Advanced and Blockout subpanels; ``blocker`` — why its
  button is greyed out; ``reuse_offer`` — its "Already generated" offer; ``service_list`` — the
  services to choose from while none is chosen.
* ``jobs`` — the job list and the details of the chosen job; ``thumbnails`` — their previews;
  ``quality`` — a result's quality line in the details.
* ``agents`` — the Agents panel (who is connected, what each spent) and an agent's job's mark.
"""

from __future__ import annotations

from ..registration import classes_factory, release_loaded
from . import agents, generate, jobs, props

classes = (*props.classes, *generate.classes, *jobs.classes, *agents.classes)
_register_classes, _unregister_classes = classes_factory(classes)
#: What each module of the room loaded by its first draw lets go of on unregister.
_RELEASES = (("thumbnails", "free_all"),)


def register() -> None:
    _register_classes()
    props.register()


def unregister() -> None:
    jobs.unregister()
    release_loaded(__name__, _RELEASES)
    props.unregister()
    _unregister_classes()
