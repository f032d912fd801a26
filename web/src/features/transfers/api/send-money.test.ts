import { describe, expect, it } from "vitest";
import { PRESET_RECIPIENTS, presetRecipient } from "../lib/preset-recipients";
import {
  AMOUNT_MESSAGES,
  DEFAULT_LOCATION,
  EMPTY_VALUES,
  MAX_LOCATION_NAME,
  MESSAGES,
  PIN_MESSAGES,
  amountProblem,
  locationFromLink,
  prefillFromSearch,
  sendMoneySchema,
  senderPinProblem,
} from "./send-money";

const prefill = (query: string) => prefillFromSearch(new URLSearchParams(query));

describe("prefillFromSearch", () => {
  it("takes amount, recipient, phone and location from the query string", () => {
    expect(prefill("amount=150.50&recipient=Sipho%20Dlamini&phone=%2B27821234567&location=Sandton%20City")).toEqual({
      values: { ...EMPTY_VALUES, amount: "150.50", recipientName: "Sipho Dlamini", recipientPhone: "+27 82 123 4567" },
      location: { name: "Sandton City", type: "param" },
    });
  });

  it("uses 'Nearest ATM' (type default) without a location", () => {
    expect(prefill("").location).toEqual({ name: "Nearest ATM", type: "default" });
    expect(prefill("location=%20%20").location).toEqual(DEFAULT_LOCATION);
  });

  // The transfers service's rule for a location (NewRequest): the sender cannot edit a link's
  // location, so one it would refuse gives way to the default instead of failing on Send.
  it.each([
    ["a right-to-left override inside", "Sandton\u202eCity"],
    ["a zero-width space", "Sandton\u200bCity"],
    ["a control character", "Sandton\u0000City"],
    ["a web address", "www.example.com"],
    ["a URL", "https://x.co"],
    ["a web address written with ideographic full stops", "fnb-secure\u3002co\u3002za"],
    ["a web address written with fullwidth full stops", "fnb-secure\uff0eco\uff0eza"],
    ["a web address written with middle dots", "fnb-secure\u00b7co\u00b7za"],
    ["more than 100 characters", "a".repeat(MAX_LOCATION_NAME + 1)],
  ])("falls back to 'Nearest ATM' for a location with %s", (_, name) => {
    expect(prefillFromSearch(new URLSearchParams({ location: name })).location).toEqual(DEFAULT_LOCATION);
  });

  it.each([
    ["Sandton City", "Sandton City"],
    ["Café Mall", "Café Mall"],
    ["Shop 12, Mall of Africa (Midrand) & Co.", "Shop 12, Mall of Africa (Midrand) & Co."],
    ["St. George's Mall", "St. George's Mall"],
    ["  Rosebank   Mall ", "Rosebank Mall"],
    ["Rosebank\t\u00a0Mall\u3000", "Rosebank Mall"],
    ["a".repeat(MAX_LOCATION_NAME), "a".repeat(MAX_LOCATION_NAME)],
  ])("keeps the location %j as %j", (name, kept) => {
    expect(prefillFromSearch(new URLSearchParams({ location: name })).location).toEqual({ name: kept, type: "param" });
  });
});

describe("locationFromLink", () => {
  it("counts characters after collapsing white space, as the server does", () => {
    const word = "b".repeat(49);
    expect(locationFromLink(`  ${word}     ${word}x `)).toBe(`${word} ${word}x`); // 106 before, 100 after
    expect(locationFromLink(`${word} ${word}xy`)).toBeUndefined(); // 101
    expect(locationFromLink("😀".repeat(MAX_LOCATION_NAME))).toBe("😀".repeat(MAX_LOCATION_NAME)); // code points, not UTF-16 units
  });

  it("treats line and paragraph separators as white space and the byte order mark as hidden", () => {
    expect(locationFromLink("Rosebank\u2028Mall")).toBe("Rosebank Mall");
    expect(locationFromLink("\ufeffRosebank Mall")).toBeUndefined();
  });

  it("refuses a phone number in the location, as the server does, and keeps a place's short numbers", () => {
    for (const lure of ["FNB fraud line 087 575 9404", "Call 0800-123-456 now", "Branch (011) 555 0100", "Sandton 1234567"]) {
      expect(locationFromLink(lure)).toBeUndefined();
    }
    expect(locationFromLink("Shop 12, Unit 4.12, Gate 3, 2nd floor")).toBe("Shop 12, Unit 4.12, Gate 3, 2nd floor");
    expect(locationFromLink("Erf 123 456")).toBe("Erf 123 456");
  });

  it("fills name and phone from the four preset recipient keys, case-insensitively", () => {
    for (const key of ["mom", "dad", "sister", "brother"] as const) {
      const { values } = prefill(`recipient=${key.toUpperCase()}`);
      expect(values.recipientName).toBe(PRESET_RECIPIENTS[key].name);
      expect(values.recipientPhone).toBe(PRESET_RECIPIENTS[key].phone);
    }
  });

  it("lets an explicit phone win over the preset's", () => {
    expect(prefill("recipient=mom&phone=0831112222").values).toMatchObject({
      recipientName: PRESET_RECIPIENTS.mom.name,
      recipientPhone: "+27 83 111 2222",
    });
  });

  // Send Similar and Resend pass the stored E.164; a recipient's Send or a typed link may pass
  // the national form. The field reads as it does when a saved recipient is picked.
  it.each([
    ["%2B27825550143", "+27 82 555 0143"],
    ["0825550143", "+27 82 555 0143"],
    ["082%20555%200143", "+27 82 555 0143"],
    ["27825550143", "+27 82 555 0143"],
  ])("shows a link's phone %s grouped, as %j", (phone, shown) => {
    expect(prefill(`phone=${phone}`).values.recipientPhone).toBe(shown);
  });

  it("keeps a link's phone that is not a South African mobile as given, for the sender to correct", () => {
    expect(prefill("phone=011%20123%204567").values.recipientPhone).toBe("011 123 4567");
  });

  it("drops an amount that is not a rand amount", () => {
    expect(prefill("amount=abc").values.amount).toBe("");
    expect(prefill("amount=1.234").values.amount).toBe("");
    expect(prefill("amount=150").values.amount).toBe("150");
  });

  it("shows a whole-rand amount as the sender types it (Send Similar and Resend write '150.00')", () => {
    expect(prefill("amount=150.00").values.amount).toBe("150");
    expect(prefill("amount=3000.00").values.amount).toBe("3000");
    expect(prefill("amount=150.50").values.amount).toBe("150.50");
  });

  it("leaves out a rand sign passed with the amount: the field shows its own R", () => {
    expect(prefill("amount=R150.00").values.amount).toBe("150");
    expect(prefill("amount=R%201%20500,50").values.amount).toBe("1 500,50");
  });
});

describe("preset recipients", () => {
  it("are South African names with 08x mobile numbers", () => {
    expect(Object.keys(PRESET_RECIPIENTS)).toEqual(["mom", "dad", "sister", "brother"]);
    for (const preset of Object.values(PRESET_RECIPIENTS)) {
      expect(preset.phone.replace(/\s/g, "")).toMatch(/^08\d{8}$/);
    }
  });

  it("do not answer for ordinary names or object keys", () => {
    expect(presetRecipient("Sipho")).toBeUndefined();
    expect(presetRecipient("constructor")).toBeUndefined();
    expect(presetRecipient("")).toBeUndefined();
  });
});

describe("sendMoneySchema", () => {
  const valid = {
    amount: "150",
    recipientName: "Sipho",
    recipientPhone: "0821234567",
    bank: "1",
    paymentMethodId: "pm-1",
    ownPin: false,
    senderPin: "",
  };

  it("accepts a complete transfer", () => {
    expect(sendMoneySchema.safeParse(valid).success).toBe(true);
  });

  it.each([
    ["amount", "", MESSAGES.invalidAmount.description],
    ["amount", "0", MESSAGES.invalidAmount.description],
    ["amount", "0.00", MESSAGES.invalidAmount.description],
    ["amount", "-5", MESSAGES.invalidAmount.description],
    ["amount", "155", AMOUNT_MESSAGES.notes],
    ["amount", "150.50", AMOUNT_MESSAGES.notes],
    ["recipientName", "  ", MESSAGES.missingRecipient.description],
    ["recipientPhone", "", MESSAGES.missingRecipient.description],
    ["bank", "", MESSAGES.missingRecipient.description],
    ["paymentMethodId", "", MESSAGES.missingPaymentMethod.description],
  ])("refuses %s = %j with the spec's message", (field, value, message) => {
    const result = sendMoneySchema.safeParse({ ...valid, [field]: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([message]);
  });

  it.each([
    ["Visit fnb-secure.co.za", "Names can't contain a web address."],
    ["www.fnb-help.co.za", "Names can't contain a web address."],
    ["Sipho\u202e", "Names may only contain letters, spaces, apostrophes, hyphens and full stops."],
    ["-", "The recipient's name must include at least one letter."],
  ])("refuses the recipient %j in the transfers service's words", (recipientName, message) => {
    const result = sendMoneySchema.safeParse({ ...valid, recipientName });
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ["recipientName"], message })]);
  });

  it.each(["J. R. R. Tolkien", "J.R.R. Tolkien", "Mary-Jane O'Neil", "St. John", "Nomvuyiseko Wilhelmina-Christina"])(
    "accepts the recipient %j",
    (recipientName) => {
      expect(sendMoneySchema.safeParse({ ...valid, recipientName }).success).toBe(true);
    },
  );

  it("asks for a PIN only when the sender gives it themselves", () => {
    expect(sendMoneySchema.safeParse({ ...valid, ownPin: false, senderPin: "1111" }).success).toBe(true);
    expect(sendMoneySchema.safeParse({ ...valid, ownPin: true, senderPin: "7395" }).success).toBe(true);
    const refused = sendMoneySchema.safeParse({ ...valid, ownPin: true, senderPin: "4321" });
    expect(refused.error?.issues).toEqual([expect.objectContaining({ path: ["senderPin"], message: PIN_MESSAGES.run })]);
  });

  it("uses the spec's submit message", () => {
    expect(MESSAGES.incomplete).toBe("Please complete all required fields");
  });
});

describe("amountProblem: ATMs pay out notes", () => {
  it.each(["10", "20", "500", "500.00", "2990", "3000"])("accepts R%s", (amount) => {
    expect(amountProblem(amount)).toBeUndefined();
  });

  it.each(["5", "15", "499", "500.50", "0.10"])("refuses R%s: multiples of R10 only", (amount) => {
    expect(amountProblem(amount)).toBe("ATMs pay out notes: choose an amount in multiples of R10.");
  });

  it("leaves the limits to the server: no copy of them judges an amount here", () => {
    expect(amountProblem("3010")).toBeUndefined();
    expect(amountProblem("1000000")).toBeUndefined();
  });
});

describe("amountProblem: the rand sign, and what it says of text it cannot read", () => {
  // The field shows an R before the amount and the page writes "R150,00": typing the R too is fine.
  it.each(["R150", "r150", "R 150", "r 150", "R150,00", "R 1 500,00", "R1\u00a0500,00"])("accepts %j", (amount) => {
    expect(amountProblem(amount)).toBeUndefined();
  });

  it("still asks for notes after the rand sign", () => {
    expect(amountProblem("R155")).toBe(AMOUNT_MESSAGES.notes);
  });

  // The spec's words (section 5) are for an amount that is missing or not above zero.
  it.each(["", "R", "0", "R0,00", "-50", "-R50"])("refuses %j in the spec's words", (amount) => {
    expect(amountProblem(amount)).toBe("Please enter a valid amount greater than zero.");
  });

  // Text that is no amount is not 'not greater than zero': it says that it cannot be read.
  it.each(["abc", "1.234", "15 00", "1,500,50", "150R", "R1e3"])("says %j cannot be read", (amount) => {
    expect(amountProblem(amount)).toBe("We can't read that amount. Enter it in rand, such as 150 or 1 500.");
    expect(amountProblem(amount)).toBe(AMOUNT_MESSAGES.unreadable);
  });
});

describe("senderPinProblem", () => {
  it.each(["7395", "1357", "0192", "9012", "1123", "5679"])("accepts %s", (pin) => {
    expect(senderPinProblem(pin)).toBeUndefined();
  });

  it.each([
    ["", PIN_MESSAGES.format],
    ["123", PIN_MESSAGES.format],
    ["12345", PIN_MESSAGES.format],
    ["12a4", PIN_MESSAGES.format],
    ["0000", PIN_MESSAGES.equal],
    ["7777", PIN_MESSAGES.equal],
    ["1234", PIN_MESSAGES.run],
    ["6789", PIN_MESSAGES.run],
    ["4321", PIN_MESSAGES.run],
    ["3210", PIN_MESSAGES.run],
  ])("refuses %j: %s", (pin, message) => {
    expect(senderPinProblem(pin)).toBe(message);
  });
});
