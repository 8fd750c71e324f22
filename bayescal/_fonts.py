"""Fonts for figures whose text may be in any script (annotator names in CJK, say).

matplotlib's own font, DejaVu Sans, lacks the CJK glyphs; matplotlib falls back glyph by glyph
along a list of families, so the report's figures list the wide-coverage fonts installed here
after it (:func:`fallback_fonts`).  Imported with matplotlib, by the figures only.
"""

from __future__ import annotations

import contextlib

__all__ = ["FALLBACK_FONTS", "fallback_fonts", "font_families"]

#: Installed fonts tried, in order, for the glyphs DejaVu Sans lacks (annotator names in CJK
#: scripts, say): matplotlib falls back glyph by glyph along a list of families.
FALLBACK_FONTS = (
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Source Han Sans",
    "WenQuanYi Zen Hei",
    "Droid Sans Fallback",
    "Hiragino Sans",
    "PingFang SC",
    "Microsoft YaHei",
    "Malgun Gothic",
    "Arial Unicode MS",
    "Noto Sans",
)


def font_families() -> list[str]:
    """DejaVu Sans (matplotlib's own font), then the :data:`FALLBACK_FONTS` installed here."""
    from matplotlib import font_manager

    installed = {font.name for font in font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *(name for name in FALLBACK_FONTS if name in installed)]


@contextlib.contextmanager
def fallback_fonts():
    """Text drawn inside this block takes each glyph from the first of :func:`font_families`
    that has it; a glyph none has is drawn as a box, silently (one warning per glyph would say
    nothing the figure does not show).  matplotlib's settings are restored on leaving."""
    import warnings

    import matplotlib

    with matplotlib.rc_context({"font.family": font_families()}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        yield
