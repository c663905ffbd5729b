from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
(spark.read.parquet("s3://features/daily/")
      .selectExpr("model_id AS key", "to_json(struct(*)) AS value")
      .write.format("kafka")
      .option("kafka.bootstrap.servers", "b-1.analytics.def456.c3.kafka.eu-west-1.amazonaws.com:9092")
      .option("topic", "fraud-model-features")
      .save())
