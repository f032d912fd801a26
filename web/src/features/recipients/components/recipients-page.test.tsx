import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import {
  Bank,
  RecipientSchema,
  RecipientsService,
  ScheduleFrequency,
  ScheduleSchema,
  ScheduleState,
  SchedulesService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { Recipient, Schedule, UpdateRecipientRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { badRequestDetail, errorWithDetails } from "@/test/error-details";
import { liveFeed } from "@/test/live-feed";
import { expectToast } from "@/test/toasts";

const PHONE_TAKEN = "You already have a saved recipient with this phone number. Edit or delete that one instead.";

function recipient(id: string, name: string, phone: string, bank: Bank, paidMinutesAgo: number): Recipient {
  return create(RecipientSchema, { id, name, phone, bank, lastPaidAt: timestampFromMs(Date.now() - paidMinutesAgo * 60_000) });
}

/** An in-memory RecipientsService, filtering by name or phone like the server. */
function backend(initial: Recipient[], options: { live?: ReturnType<typeof liveFeed>; fail?: boolean; schedules?: Schedule[] } = {}) {
  const state = { list: [...initial], updates: [] as UpdateRecipientRequest[], lists: 0 };
  const routes = (r: ConnectRouter) => {
    r.service(RecipientsService, {
      listRecipients: (request) => {
        state.lists += 1;
        if (options.fail) throw new ConnectError("unavailable", Code.Unavailable);
        const q = request.query.toLowerCase();
        return { recipients: state.list.filter((x) => !q || x.name.toLowerCase().includes(q) || x.phone.includes(q)) };
      },
      updateRecipient: (request) => {
        state.updates.push(request);
        if (request.phone.replace(/\D/g, "").endsWith("835550101") && request.recipientId !== "r-1") {
          throw errorWithDetails(PHONE_TAKEN, Code.AlreadyExists, badRequestDetail([{ field: "phone", description: PHONE_TAKEN }]));
        }
        state.list = state.list.map((x) =>
          x.id === request.recipientId ? create(RecipientSchema, { ...x, name: request.name, bank: request.bank }) : x,
        );
        return { recipient: state.list.find((x) => x.id === request.recipientId) };
      },
      deleteRecipient: (request) => {
        state.list = state.list.filter((x) => x.id !== request.recipientId);
        return {};
      },
    });
    if (options.schedules) {
      const schedules = options.schedules;
      r.service(SchedulesService, { listSchedules: () => ({ schedules }) });
    }
    options.live?.register(r);
  };
  return { state, routes };
}

const NALEDI = recipient("r-1", "Naledi Mokoena", "+27835550101", Bank.CAPITEC, 5);
const SIPHO = recipient("r-2", "Sipho Dlamini", "+27821234567", Bank.FNB, 60 * 48);

async function openPage(list: Recipient[], options: Parameters<typeof backend>[1] = {}) {
  const fake = backend(list, options);
  const app = renderApp("/recipients", { session: SIGNED_IN, routes: fake.routes });
  await screen.findByRole("heading", { level: 1, name: "Recipients" });
  return { ...app, state: fake.state };
}

describe("recipients page", () => {
  it("is in the sidebar right after Send Money", async () => {
    await openPage([]);
    const nav = screen.getByRole("navigation", { name: "Main navigation" });
    const links = within(nav).getAllByRole("link").map((link) => link.textContent?.trim());
    expect(links.indexOf("Recipients")).toBe(links.indexOf("Send Money") + 1);
    expect(within(nav).getByRole("link", { name: "Recipients" })).toHaveAttribute("aria-current", "page");
  });

  it("says when there are none yet", async () => {
    await openPage([]);
    expect(await screen.findByText("No saved recipients yet. People you send money to are saved here.")).toBeInTheDocument();
  });

  it("says when they cannot be read, and offers to try again", async () => {
    await openPage([NALEDI], { fail: true });
    expect(await screen.findByText("We couldn't load your saved recipients.", { selector: "p" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
    await expectToast("We couldn't load your saved recipients.");
  });

  it("lists them with phone, bank and when last paid, and searches by name or phone", async () => {
    const { user } = await openPage([NALEDI, SIPHO]);
    const list = await screen.findByRole("list", { name: "Your saved recipients" });
    const cards = within(list).getAllByRole("region");
    expect(cards.map((c) => within(c).getByRole("heading").textContent)).toEqual(["Naledi Mokoena", "Sipho Dlamini"]);
    expect(cards[0]).toHaveTextContent("+27 83 555 0101");
    expect(cards[0]).toHaveTextContent("Capitec · Last paid Today");

    await user.type(screen.getByRole("searchbox", { name: "Search recipients" }), "sipho");
    await waitFor(() => expect(within(screen.getByRole("list", { name: "Your saved recipients" })).getAllByRole("region")).toHaveLength(1));
    await user.clear(screen.getByRole("searchbox", { name: "Search recipients" }));
    await user.type(screen.getByRole("searchbox", { name: "Search recipients" }), "nobody");
    expect(await screen.findByText(/No saved recipients match/)).toBeInTheDocument();
  });

  it("edits a recipient in a dialog, showing the server's refusal under the phone", async () => {
    const { user, state } = await openPage([NALEDI, SIPHO]);
    await user.click(await screen.findByRole("button", { name: "Edit Sipho Dlamini" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Recipient" });
    expect(within(dialog).getByLabelText("Phone Number")).toHaveValue("+27 82 123 4567");
    expect(within(dialog).getByLabelText("Bank")).toHaveValue(String(Bank.FNB));

    await user.clear(within(dialog).getByLabelText("Name"));
    await user.click(within(dialog).getByRole("button", { name: "Save Changes" }));
    expect(await within(dialog).findByText("Please enter the recipient's name.")).toBeInTheDocument();
    expect(state.updates).toHaveLength(0);

    // A name that carries a web address: refused in the server's words, before asking it.
    const name = within(dialog).getByLabelText("Name");
    await user.type(name, "www.fnb-help.co.za");
    await user.click(within(dialog).getByRole("button", { name: "Save Changes" }));
    await waitFor(() => expect(name).toHaveAccessibleDescription("Names can't contain a web address."));
    expect(name).toHaveAttribute("aria-invalid", "true");
    expect(state.updates).toHaveLength(0);
    await user.clear(name);

    await user.type(within(dialog).getByLabelText("Name"), "Sipho Khumalo");
    await user.clear(within(dialog).getByLabelText("Phone Number"));
    await user.type(within(dialog).getByLabelText("Phone Number"), "083 555 0101");
    await user.click(within(dialog).getByRole("button", { name: "Save Changes" }));
    expect(await within(dialog).findByText(PHONE_TAKEN)).toBeInTheDocument();
    await expectToast("Update failed", PHONE_TAKEN);

    await user.clear(within(dialog).getByLabelText("Phone Number"));
    await user.type(within(dialog).getByLabelText("Phone Number"), "082 123 4567");
    await user.selectOptions(within(dialog).getByLabelText("Bank"), "Nedbank");
    await user.click(within(dialog).getByRole("button", { name: "Save Changes" }));
    await expectToast("Recipient updated", "Sipho Khumalo's details were saved.");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(state.updates.at(-1)).toMatchObject({ recipientId: "r-2", name: "Sipho Khumalo", phone: "082 123 4567", bank: Bank.NEDBANK });
    expect(await screen.findByRole("heading", { name: "Sipho Khumalo" })).toBeInTheDocument();
  });

  it("deletes a recipient after a confirmation", async () => {
    const { user } = await openPage([NALEDI, SIPHO]);
    await user.click(await screen.findByRole("button", { name: "Delete Naledi Mokoena" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete Recipient" });
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    expect(screen.getByRole("heading", { name: "Naledi Mokoena" })).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Delete Naledi Mokoena" }));
    await user.click(within(await screen.findByRole("alertdialog", { name: "Delete Recipient" })).getByRole("button", { name: "Delete" }));
    await expectToast("Recipient deleted", "Naledi Mokoena was removed from your saved recipients.");
    await waitFor(() => expect(screen.queryByRole("heading", { name: "Naledi Mokoena" })).not.toBeInTheDocument());
  });

  it("says, before deleting a recipient, that their scheduled sends go on", async () => {
    const weekly = create(ScheduleSchema, {
      id: "s-1",
      recipientName: "Naledi Mokoena",
      recipientPhone: "+27835550101",
      bank: Bank.CAPITEC,
      amountCents: 50_000n,
      frequency: ScheduleFrequency.WEEKLY,
      state: ScheduleState.ACTIVE,
    });
    const ended = create(ScheduleSchema, { ...weekly, id: "s-2", frequency: ScheduleFrequency.MONTHLY, state: ScheduleState.ENDED });
    const { user } = await openPage([NALEDI, SIPHO], { schedules: [weekly, ended] });
    await user.click(await screen.findByRole("button", { name: "Delete Naledi Mokoena" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete Recipient" });
    expect(
      await within(confirm).findByText(
        "You have a scheduled send to Naledi Mokoena (R500,00 to Naledi Mokoena, weekly). Deleting Naledi Mokoena does not stop it: pause or delete it under Scheduled sends.",
      ),
    ).toBeInTheDocument();
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));

    // Nothing scheduled to Sipho: nothing to say.
    await user.click(screen.getByRole("button", { name: "Delete Sipho Dlamini" }));
    const other = await screen.findByRole("alertdialog", { name: "Delete Recipient" });
    expect(within(other).queryByRole("note")).not.toBeInTheDocument();
  });

  it("lists them again when the live stream says they changed", async () => {
    const live = liveFeed();
    const { state } = await openPage([SIPHO], { live });
    await screen.findByRole("heading", { name: "Sipho Dlamini" });
    await waitFor(() => expect(live.open).toBe(1));
    state.list = [NALEDI, SIPHO];
    live.push({ cursor: "7", event: { case: "recipientsChanged", value: {} } });
    expect(await screen.findByRole("heading", { name: "Naledi Mokoena" })).toBeInTheDocument();
  });
});
