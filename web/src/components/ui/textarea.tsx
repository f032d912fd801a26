import type { Ref, TextareaHTMLAttributes } from "react";
import { cn } from "@/lib/cn";

const textareaClasses =
  "block min-h-28 w-full rounded-lg border border-slate-300 bg-white px-3 py-2.5 text-base text-slate-900 shadow-sm " +
  "placeholder:text-slate-400 focus:border-brand-600 focus:outline-2 focus:outline-offset-0 focus:outline-brand-500/40 " +
  "aria-invalid:border-red-500 disabled:cursor-not-allowed disabled:opacity-60 " +
  "dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-500 sm:text-sm";

/** A multi-line text field styled like Input. */
export function Textarea({ className, ref, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement> & { ref?: Ref<HTMLTextAreaElement> }) {
  return <textarea ref={ref} className={cn(textareaClasses, className)} {...rest} />;
}
