"""Contract name kept for outside checks: ``api.glb.check_glb`` (the check is :mod:`api.checks.glb`)."""

from .checks.glb import check_glb as check_glb
