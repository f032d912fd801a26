import { Tabs } from "radix-ui";
import { useSearchParams } from "react-router";
import { Card } from "@/components/ui/card";
import { HELP_FAQ } from "../content/faq";
import { FaqAccordion } from "./faq-accordion";
import { HelpContactForm } from "./help-contact-form";
import { HelpDocuments } from "./help-documents";

const TABS = [
  { value: "faq", label: "FAQ" },
  { value: "contact", label: "Contact Us" },
  { value: "documents", label: "Documents" },
] as const;
type TabValue = (typeof TABS)[number]["value"];

const triggerClasses =
  "rounded-md px-4 py-2 text-sm font-medium text-slate-600 transition-colors hover:text-slate-900 " +
  "data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm " +
  "dark:text-slate-400 dark:hover:text-white dark:data-[state=active]:bg-slate-900 dark:data-[state=active]:text-white";

/** /help: FAQ, Contact Us and Documents tabs. The tab is kept in ?tab= so it can be linked. */
export function HelpCenter() {
  const [searchParams, setSearchParams] = useSearchParams();
  const requested = searchParams.get("tab");
  const tab: TabValue = TABS.some((candidate) => candidate.value === requested) ? (requested as TabValue) : "faq";

  const onTabChange = (value: string) => {
    const next = new URLSearchParams(searchParams);
    if (value === "faq") next.delete("tab");
    else next.set("tab", value);
    setSearchParams(next, { replace: true });
  };

  return (
    <div className="mx-auto w-full max-w-4xl">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl dark:text-white">Help Center</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">Answers to common questions, and how to reach us.</p>
      <Tabs.Root value={tab} onValueChange={onTabChange} className="mt-6">
        <Tabs.List aria-label="Help Center sections" className="inline-flex gap-1 rounded-lg bg-slate-100 p-1 dark:bg-slate-800">
          {TABS.map((item) => (
            <Tabs.Trigger key={item.value} value={item.value} className={triggerClasses}>
              {item.label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <Tabs.Content value="faq" className="mt-6">
          <FaqAccordion groups={HELP_FAQ} />
        </Tabs.Content>
        <Tabs.Content value="contact" className="mt-6">
          <Card className="p-6">
            <h2 className="text-lg font-semibold text-slate-900 dark:text-white">Contact Us</h2>
            <p className="mb-5 mt-1 text-sm text-slate-600 dark:text-slate-400">
              Ask a question, report an issue or tell us what you think.
            </p>
            <HelpContactForm />
          </Card>
        </Tabs.Content>
        <Tabs.Content value="documents" className="mt-6">
          <HelpDocuments />
        </Tabs.Content>
      </Tabs.Root>
    </div>
  );
}
