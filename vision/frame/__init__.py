"""Stage 1, the frame: where camera frames come from (``sources``) and whether one is fit to be read
(``quality``: sharpness, glare, exposure, shaking, with the sentence for the host), plus the two ways a
frame is made readable before markers are looked for: a motion smear undone (``deblur``) and a 4K frame
searched at half size and read at full size (``pyramid``)."""
