"""The print-service output (``companion print … --for-service``): every colour in DeviceCMYK, black
ink as 100 % K alone, an output intent, and the document marked PDF/X-1a:2003.

Colours are converted as they are drawn (ReportLab's ``enforceColorSpace`` hook), so the same
drawing code writes the home (RGB) and the press (CMYK) files. The conversion is device-level, not
colour-managed: ``#212121`` (our black: text, QR codes, markers, cut marks) becomes K 100 % alone,
neutral greys K alone, and every other colour CMY with full grey component replacement (the grey
part of a colour goes to K), which can never exceed 300 % total ink (one of C, M, Y is always 0).
No ICC profile ships in Debian that a FOGRA39 or SWOP press matches, so the output intent names
the registered characterization (``FOGRA39``) instead of embedding one, which PDF/X-1a allows.
"""
from __future__ import annotations

from reportlab.lib.colors import CMYKColor, Color, toColor
from reportlab.pdfbase.pdfdoc import PDFArray, PDFDictionary, PDFInfo, PDFName, PDFString
from reportlab.pdfgen.canvas import Canvas

BLACK_RGB = (0x21 / 255, 0x21 / 255, 0x21 / 255)   # faces.INK: the one black every mark is drawn in
CONFORMANCE = "PDF/X-1a:2003"
OUTPUT_CONDITION = "FOGRA39"
OUTPUT_CONDITION_INFO = "Coated FOGRA39 (ISO 12647-2:2004)"
REGISTRY = "http://www.color.org"
MAX_INK = 3.0   # total area coverage: services ask for at most 240–300 %


def to_cmyk(colour) -> CMYKColor:
    """A drawing colour in CMYK for the press: our black as K 100 % alone, greys as K alone, other
    colours with their grey part replaced by K (so at most 300 % ink)."""
    c = toColor(colour)
    if isinstance(c, CMYKColor):
        return c
    if not isinstance(c, Color):
        raise ValueError(f"cannot print {colour!r} in CMYK")
    alpha = getattr(c, "alpha", 1)
    r, g, b = c.red, c.green, c.blue
    if all(abs(v - w) < 1e-6 for v, w in zip((r, g, b), BLACK_RGB)):
        return CMYKColor(0, 0, 0, 1, alpha=alpha)     # one plate: no registration halo on 2 mm modules
    k = 1 - max(r, g, b)
    if k >= 1 - 1e-9:
        return CMYKColor(0, 0, 0, 1, alpha=alpha)
    cmy = [(1 - v - k) / (1 - k) for v in (r, g, b)]
    return CMYKColor(*(round(v, 4) for v in cmy), round(k, 4), alpha=alpha)


class PressInfo(PDFInfo):
    """The document information dictionary with the PDF/X version key (and Trapped /False)."""

    def format(self, document) -> bytes:
        """The dictionary of ``PDFInfo`` plus ``GTS_PDFXVersion``."""
        base = PDFInfo.format(self, document)
        # PDFInfo writes a finished dictionary; add our key before its closing >>
        end = base.rindex(b">>")
        return base[:end] + b"/GTS_PDFXVersion " + PDFString(CONFORMANCE).format(document) + b"\n" + base[end:]


def press_canvas(path: str, pagesize: tuple[float, float], **kw) -> Canvas:
    """A canvas that writes CMYK only, declares the output intent and PDF/X-1a:2003."""
    c = Canvas(path, pagesize=pagesize, enforceColorSpace=to_cmyk, **kw)
    info = PressInfo()
    info.__dict__.update(c._doc.info.__dict__)
    c._doc.info = info
    catalog = c._doc.Catalog
    catalog.__NoDefault__ = [*catalog.__NoDefault__, "OutputIntents"]
    catalog.OutputIntents = PDFArray([PDFDictionary({
        "Type": PDFName("OutputIntent"), "S": PDFName("GTS_PDFX"),
        "OutputConditionIdentifier": PDFString(OUTPUT_CONDITION), "RegistryName": PDFString(REGISTRY),
        "Info": PDFString(OUTPUT_CONDITION_INFO)})])
    return c
