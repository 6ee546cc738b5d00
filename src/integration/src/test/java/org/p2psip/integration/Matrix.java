package org.p2psip.integration;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A test class of the matrix run only (`deploy/p2psip test --matrix`, or
 * `-Dp2psip.it.matrix=true`): the same checks as the default run's, on the other backends and
 * front policies. Each such class starts several container JVMs; all of them together would take
 * the default run past its time budget (the root README, "Two commands").
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@EnabledIfSystemProperty(named = "p2psip.it.matrix", matches = "true",
        disabledReason = "matrix run only: deploy/p2psip test --matrix")
@interface Matrix {
}
