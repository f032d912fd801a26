-- The first-payment question: a transfer to a phone the sender has never paid needs their tick
-- on "Do you know {name} personally? ...", and the answer is kept on the transfer (for the
-- sender's history, and for whoever looks into a reported scam). Transfers made before the
-- question existed were never asked: false, which is what they carried.
ALTER TABLE transfers ADD COLUMN recipient_known_confirmed boolean NOT NULL DEFAULT false;
