package tracking

// Pixel is the body of GET /t/o/<token> (D53): a 43-byte GIF89a of one
// fully transparent pixel. It is a variable only because Go has no constant
// byte slices; callers must not modify it.
var Pixel = []byte{
	'G', 'I', 'F', '8', '9', 'a', // signature and version
	0x01, 0x00, 0x01, 0x00, // logical screen 1x1
	0x80, 0x00, 0x00, // global color table of 2 entries, background 0, no aspect ratio
	0x00, 0x00, 0x00, 0xff, 0xff, 0xff, // the two colors: black, white
	0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, // graphic control extension: color 0 is transparent
	0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, // image descriptor at 0,0 of 1x1
	0x02, 0x02, 0x44, 0x01, 0x00, // LZW minimum code size 2, one 2-byte block, block terminator
	0x3b, // trailer
}
