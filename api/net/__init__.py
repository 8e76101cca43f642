"""HTTP plumbing under the client: origin judgement, deadlines, capped reading, error mapping.

No bpy here either (``api/`` rule). Split from ``api.client`` so the service calls read as the
spec does while the rules that keep the key and the artist's machine safe live in one place.
"""
