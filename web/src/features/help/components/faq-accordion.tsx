import { ChevronDown } from "lucide-react";
import { Accordion } from "radix-ui";
import { LimitText } from "@/components/limit-text";
import type { FaqGroup } from "../content/faq";

/**
 * Every group's questions in ONE single-type accordion, so at most one answer is open across
 * the whole FAQ (the spec: one open at a time). Group titles are h2, questions h3.
 */
export function FaqAccordion({ groups }: { groups: readonly FaqGroup[] }) {
  return (
    <Accordion.Root type="single" collapsible className="space-y-8">
      {groups.map((group) => (
        <section key={group.id} aria-labelledby={`faq-${group.id}`}>
          <h2 id={`faq-${group.id}`} className="text-lg font-semibold text-slate-900 dark:text-white">
            {group.title}
          </h2>
          <div className="mt-3 divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900">
            {group.items.map((item) => (
              <Accordion.Item key={item.id} value={`${group.id}/${item.id}`}>
                <Accordion.Header>
                  <Accordion.Trigger className="group flex w-full items-center justify-between gap-4 rounded-xl px-4 py-3.5 text-left text-sm font-medium text-slate-900 hover:bg-slate-50 sm:text-base dark:text-white dark:hover:bg-slate-800/60">
                    {item.question}
                    <ChevronDown
                      aria-hidden="true"
                      className="size-5 shrink-0 text-slate-500 transition-transform group-data-[state=open]:rotate-180 motion-reduce:transition-none"
                    />
                  </Accordion.Trigger>
                </Accordion.Header>
                <Accordion.Content className="px-4 pb-4 text-sm text-slate-700 dark:text-slate-300">
                  <LimitText text={item.answer} />
                </Accordion.Content>
              </Accordion.Item>
            ))}
          </div>
        </section>
      ))}
    </Accordion.Root>
  );
}
