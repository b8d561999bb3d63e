#!/usr/bin/env python3
"""Renders a ZPL label to PNG with zplkit, as the ZPL label tests (tests/api/zpl_labels.rs) do.

    zpl_render.py LABEL.zpl OUT.png [OUT.pgm]

The label is 800 x 1200 dots at 203 dpi (100 x 150 mm). With a third path, the image is also
written as a binary PGM (P5, 0 black .. 255 white) for tests that count pixels. Exits 1 with
the renderer's error on stderr when the renderer refuses the label: its font 0, like a
printer's, has no glyph outside ASCII, so text sent in font 0 that it cannot show fails here.
Exits 3 when zplkit is not installed (`pip install zplkit==0.3.2`).
"""

import sys

try:
    from zplkit import Options, render
except ImportError as error:
    sys.stderr.write(f"zplkit is not installed for {sys.executable}: {error}\n")
    sys.exit(3)


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], "rb") as f:
        zpl = f.read()
    try:
        document = render(zpl, Options(width=800, height=1200, dpi=203))
        labels = document.labels
        if len(labels) != 1:
            raise ValueError(f"expected one label, got {len(labels)}")
        label = labels[0]
        png = label.png()
        raster = label.rasterize() if len(argv) == 4 else None
    except Exception as error:  # the renderer's error is the message the test shows
        sys.stderr.write(f"{type(error).__name__}: {error}\n")
        return 1
    with open(argv[2], "wb") as f:
        f.write(png)
    if raster is not None:
        pixels = raster.pixels
        per_pixel = len(pixels) // (raster.width * raster.height)
        gray = pixels[::per_pixel] if per_pixel > 1 else pixels
        with open(argv[3], "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (raster.width, raster.height))
            f.write(bytes(gray))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
