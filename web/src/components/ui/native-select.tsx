import type { Ref, SelectHTMLAttributes } from "react";
import { cn } from "@/lib/cn";
import { inputClasses } from "./input";

/** The browser's own select (best on phones and for screen readers), styled like Input. */
export function NativeSelect({ className, ref, ...rest }: SelectHTMLAttributes<HTMLSelectElement> & { ref?: Ref<HTMLSelectElement> }) {
  return <select ref={ref} className={cn(inputClasses, "appearance-auto pr-8", className)} {...rest} />;
}
