"""speedqa: SpEED-QA video quality features (speed_chroma, speed_temporal)
with Netflix libvmaf's numbers, through libspeedqa (ctypes).

    import speedqa
    with speedqa.Scorer(1920, 1080, "420", 8) as s:
        for ref, dis in frames:          # (Y, U, V) numpy planes each
            for r in s.send(ref, dis):
                print(r["frame"], r["speed_chroma_uv"], r["speed_temporal"])
        rest = s.flush()

    doc = speedqa.score_files("ref.y4m", "dis.y4m")   # the vmaf JSON document

    speedqa.Ladder(..., n_distorted=N): N renditions against one reference;
    speedqa.batch("pairs.csv", "results.jsonl"): the speedqa --batch of the C tool.

Files, manifests and batches go through libspeedqa_io, the CLI's own I/O
layer (readers, reports, number format, batch runner); frames through
libspeedqa. Both are found where speedqa is installed (SPEEDQA_LIB and
SPEEDQA_IO_LIB override).
"""
from ._error import Error
from ._ladder import Ladder
from ._picture import parse_pix_fmt
from ._scorer import Scorer, auto_threads, check_features, pool, version
from ._files import Video, open_video, score_files, format_value, to_frame
from ._batch import batch
from ._model import ModelScorer
from ._version import __version__  # noqa: F401  (speedqa.__version__)

__all__ = ["Error", "Ladder", "ModelScorer", "Scorer", "auto_threads", "batch", "check_features",
           "parse_pix_fmt", "pool", "version", "Video", "open_video", "score_files", "format_value",
           "to_frame"]
