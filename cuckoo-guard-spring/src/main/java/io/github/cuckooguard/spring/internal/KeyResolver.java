package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.GuardKey;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedMethod;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Finds the key of a guarded method call: a SpEL expression evaluated against the arguments (as
 * {@code @Cacheable}'s {@code key} is), the {@link GuardKey} parameter, or the only parameter.
 * Everything that can be checked without arguments is checked when the context starts: the syntax,
 * and that every {@code #variable} names a parameter ({@code #id} with {@code -parameters}, or
 * {@code #p0}/{@code #a0}).
 *
 * <p>Immutable and thread-safe: the parsed expression is shared, each evaluation gets its own
 * context.
 */
final class KeyResolver {

  private static final SpelExpressionParser PARSER = new SpelExpressionParser();
  private static final ParameterNameDiscoverer PARAMETER_NAMES =
      new DefaultParameterNameDiscoverer();

  private final @Nullable Expression expression;
  private final int parameterIndex;
  private final Method evaluationMethod;
  private final String description;

  private KeyResolver(
      @Nullable Expression expression,
      int parameterIndex,
      Method evaluationMethod,
      String description) {
    this.expression = expression;
    this.parameterIndex = parameterIndex;
    this.evaluationMethod = evaluationMethod;
    this.description = description;
  }

  /**
   * Builds and checks the resolver of one annotated method.
   *
   * @param annotation the annotation's simple name, for messages ({@code "@GuardedFind"})
   * @param methods the candidate declarations of the method, most specific first (the class method,
   *     then the interface method the call came in on); parameter names and {@link GuardKey} are
   *     taken from the first that has them
   * @param keyExpression the annotation's {@code key}, empty if not set
   * @throws IllegalStateException naming the method if the key cannot be resolved
   */
  static KeyResolver create(String annotation, List<Method> methods, String keyExpression) {
    Method method = methods.get(0);
    Method evaluationMethod =
        methods.stream()
            .filter(m -> PARAMETER_NAMES.getParameterNames(m) != null)
            .findFirst()
            .orElse(method);
    int guardKey = guardKeyIndex(annotation, methods);
    String where = annotation + " on " + Describe.method(method);
    if (StringUtils.hasText(keyExpression)) {
      if (guardKey >= 0) {
        throw new IllegalStateException(
            where
                + ": both key = \""
                + keyExpression
                + "\" and a @GuardKey parameter are given; keep one of them.");
      }
      Expression expression = parse(where, keyExpression);
      checkVariables(where, keyExpression, expression, evaluationMethod);
      return new KeyResolver(expression, -1, evaluationMethod, "key \"" + keyExpression + "\"");
    }
    if (guardKey >= 0) {
      return new KeyResolver(
          null, guardKey, evaluationMethod, "the @GuardKey parameter " + guardKey);
    }
    if (method.getParameterCount() == 1) {
      return new KeyResolver(null, 0, evaluationMethod, "the only parameter");
    }
    throw new IllegalStateException(
        where
            + ": cannot tell which argument is the key: the method has "
            + method.getParameterCount()
            + " parameters and neither a key expression nor a @GuardKey "
            + "parameter. Add key = \"#name\" (or \"#p0\") or annotate the key parameter with @GuardKey.");
  }

  private static int guardKeyIndex(String annotation, List<Method> methods) {
    for (Method m : methods) {
      List<Integer> marked = new ArrayList<>();
      MethodParameter[] parameters = new AnnotatedMethod(m).getMethodParameters();
      for (MethodParameter parameter : parameters) {
        if (parameter.hasParameterAnnotation(GuardKey.class)) {
          marked.add(parameter.getParameterIndex());
        }
      }
      if (marked.size() > 1) {
        throw new IllegalStateException(
            annotation
                + " on "
                + Describe.method(m)
                + ": @GuardKey is on "
                + marked.size()
                + " parameters "
                + marked
                + "; a guard has one key, mark one parameter "
                + "or use a key expression.");
      }
      if (marked.size() == 1) {
        return marked.get(0);
      }
    }
    return -1;
  }

  private static Expression parse(String where, String keyExpression) {
    try {
      return PARSER.parseExpression(keyExpression);
    } catch (ParseException ex) {
      throw new IllegalStateException(
          where
              + ": key expression \""
              + keyExpression
              + "\" is not valid SpEL: "
              + ex.getMessage(),
          ex);
    }
  }

  private static void checkVariables(
      String where, String keyExpression, Expression expression, Method method) {
    Set<String> known = new LinkedHashSet<>();
    String[] names = PARAMETER_NAMES.getParameterNames(method);
    if (names != null) {
      known.addAll(Arrays.asList(names));
    }
    for (int i = 0; i < method.getParameterCount(); i++) {
      known.add("p" + i);
      known.add("a" + i);
    }
    List<String> used = new ArrayList<>();
    if (expression instanceof SpelExpression spel) {
      collectVariables(spel.getAST(), used);
    }
    for (String variable : used) {
      if (variable.equals("root") || variable.equals("this") || known.contains(variable)) {
        continue;
      }
      String hint =
          variable.equals("result")
              ? " #result is not available: the key is evaluated before the method runs (an add must "
                  + "happen before the key becomes visible)."
              : names == null
                  ? " Parameter names of this method are not available: compile with -parameters or "
                      + "use #p0/#a0."
                  : "";
      throw new IllegalStateException(
          where
              + ": key expression \""
              + keyExpression
              + "\" refers to #"
              + variable
              + ", which is not a parameter; known: "
              + known
              + "."
              + hint);
    }
  }

  private static void collectVariables(SpelNode node, List<String> out) {
    if (node instanceof VariableReference || node instanceof FunctionReference) {
      String ast = node.toStringAST();
      int end = ast.indexOf('(');
      out.add(ast.substring(1, end < 0 ? ast.length() : end));
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      collectVariables(node.getChild(i), out);
    }
  }

  /**
   * The key of one call.
   *
   * @return the key, or {@code null} if it evaluates to {@code null}
   * @throws EvaluationException if the expression fails on these arguments
   */
  @Nullable Object resolve(MethodInvocation invocation, @Nullable BeanResolver beans) {
    Object[] args = invocation.getArguments();
    Expression spel = expression;
    if (spel == null) {
      return args[parameterIndex];
    }
    Object target = invocation.getThis();
    KeyExpressionRoot root = new KeyExpressionRoot(invocation.getMethod(), args, target);
    MethodBasedEvaluationContext context =
        new MethodBasedEvaluationContext(root, evaluationMethod, args, PARAMETER_NAMES);
    if (beans != null) {
      context.setBeanResolver(beans);
    }
    return spel.getValue(context);
  }

  /** The class to resolve generics against: the target's, else the method's own. */
  private Class<?> implementation(@Nullable Class<?> targetClass) {
    return targetClass != null ? targetClass : evaluationMethod.getDeclaringClass();
  }

  /**
   * The declared type of the key, as far as it is known without arguments: the key parameter's type
   * (resolved against {@code targetClass}), or the type at the end of a key expression of the form
   * {@code #param}, {@code #p0}, {@code #param.property}, {@code #param.method()} (and chains of
   * these); {@code null} for any other expression.
   */
  @Nullable Class<?> staticType(@Nullable Class<?> targetClass) {
    Expression spel = expression;
    if (spel == null) {
      return ClassUtils.resolvePrimitiveIfNecessary(
          ResolvableType.forMethodParameter(
                  evaluationMethod, parameterIndex, implementation(targetClass))
              .toClass());
    }
    if (!(spel instanceof SpelExpression parsed)) {
      return null;
    }
    SpelNode ast = parsed.getAST();
    List<SpelNode> chain = new ArrayList<>();
    if (ast instanceof CompoundExpression) {
      for (int i = 0; i < ast.getChildCount(); i++) {
        chain.add(ast.getChild(i));
      }
    } else {
      chain.add(ast);
    }
    if (!(chain.get(0) instanceof VariableReference variable)) {
      return null;
    }
    int index = variableIndex(variable.toStringAST().substring(1));
    if (index < 0) {
      return null;
    }
    ResolvableType type =
        ResolvableType.forMethodParameter(evaluationMethod, index, implementation(targetClass));
    for (SpelNode node : chain.subList(1, chain.size())) {
      Class<?> owner = type.toClass();
      Method accessor = null;
      if (node instanceof PropertyOrFieldReference property) {
        String name = property.getName();
        PropertyDescriptor descriptor = BeanUtils.getPropertyDescriptor(owner, name);
        accessor =
            descriptor != null
                ? descriptor.getReadMethod()
                : ReflectionUtils.findMethod(owner, name);
        if (accessor == null) {
          Field field = ReflectionUtils.findField(owner, name);
          if (field == null) {
            return null;
          }
          type = ResolvableType.forField(field, type);
          continue;
        }
      } else if (node instanceof MethodReference method && method.getChildCount() == 0) {
        accessor = ReflectionUtils.findMethod(owner, method.getName());
      }
      if (accessor == null || accessor.getParameterCount() != 0) {
        return null;
      }
      type = ResolvableType.forMethodReturnType(accessor, owner);
    }
    return ClassUtils.resolvePrimitiveIfNecessary(type.toClass());
  }

  /** The parameter a variable of a key expression names, or -1. */
  private int variableIndex(String variable) {
    if (variable.matches("[pa]\\d+")) {
      int index = Integer.parseInt(variable.substring(1));
      return index < evaluationMethod.getParameterCount() ? index : -1;
    }
    String[] names = PARAMETER_NAMES.getParameterNames(evaluationMethod);
    return names == null ? -1 : Arrays.asList(names).indexOf(variable);
  }

  /** The key as a SpEL expression over the arguments, for suggestions: the expression, or #p0. */
  String spel() {
    Expression spel = expression;
    return spel != null ? spel.getExpressionString() : "#p" + parameterIndex;
  }

  /** What the key is, for messages: {@code key "#user.id"}, {@code the only parameter}. */
  String description() {
    return description;
  }
}
