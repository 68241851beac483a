package tracking

import (
	"bytes"
	"image/gif"
	"testing"
)

func TestPixelIsATransparentOneByOneGIF(t *testing.T) {
	t.Parallel()
	if len(Pixel) != 43 {
		t.Fatalf("the pixel has %d bytes, want 43", len(Pixel))
	}
	img, err := gif.Decode(bytes.NewReader(Pixel))
	if err != nil {
		t.Fatalf("the pixel is not a valid GIF: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Fatalf("the pixel is %dx%d, want 1x1", b.Dx(), b.Dy())
	}
	if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
		t.Fatalf("the pixel has alpha %d, want fully transparent", a)
	}
}
