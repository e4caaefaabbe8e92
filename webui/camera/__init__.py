"""The camera: the feeds and frame workers that run the vision pipeline (camera.py) and the ``camera``
blueprint's pages, phone-camera upload and set-up check (camera_page.py)."""
