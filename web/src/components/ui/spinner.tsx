import { LoaderCircle } from "lucide-react";
import { cn } from "@/lib/cn";

/** A decorative spinning icon; pair it with text or a label for screen readers. */
export function Spinner({ className }: { className?: string }) {
  return <LoaderCircle aria-hidden="true" className={cn("animate-spin", className)} />;
}

/** A centred spinner with an accessible name, for whole areas that are loading. */
export function LoadingBlock({ label = "Loading...", className }: { label?: string; className?: string }) {
  return (
    <div role="status" className={cn("flex items-center justify-center gap-2 py-8 text-slate-500", className)}>
      <Spinner className="size-5 text-brand-600" />
      <span className="sr-only">{label}</span>
    </div>
  );
}
