import { Switch as SwitchPrimitive } from "radix-ui";
import { cn } from "@/lib/cn";

interface SwitchProps {
  id: string;
  label: string;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  disabled?: boolean;
  className?: string;
}

/** An on/off toggle (role switch) with its visible label. */
export function Switch({ id, label, checked, onCheckedChange, disabled, className }: SwitchProps) {
  return (
    <div className={cn("flex items-center gap-3", className)}>
      <SwitchPrimitive.Root
        id={id}
        checked={checked}
        onCheckedChange={onCheckedChange}
        disabled={disabled}
        className="relative inline-flex h-6 w-11 shrink-0 items-center rounded-full bg-slate-300 transition-colors disabled:opacity-50 data-[state=checked]:bg-brand-700 dark:bg-slate-700 dark:data-[state=checked]:bg-brand-600"
      >
        <SwitchPrimitive.Thumb className="block size-5 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[1.375rem]" />
      </SwitchPrimitive.Root>
      <label htmlFor={id} className="text-sm font-medium text-slate-700 dark:text-slate-200">
        {label}
      </label>
    </div>
  );
}
